; buoy: three brown rafts float on a pool of water (rows 8-15). A white crane on row 1
; (left/right move it) drops a weight with down; up switches its load between a light
; weight (silver, mass 1) and a heavy one (darkgray, mass 2), shown under the crane. Weights
; fall one cell per tick and stack on whatever they land on; a weight that lands on a raft or
; on its stack rides that raft. A raft holds as much mass as it is wide (2, 3 or 4): loaded
; beyond that, it sinks one cell per tick with its stack until it rests on the pool floor or
; on weights lying there; unloaded to its capacity again, it rises back to the surface. A
; click on a weight takes it away (weights above it fall onto what is below).
(program
  (= GRID_SIZE 16)

  (object Water (map (--> k (Cell (% k 16) (/ k 16) "blue")) (range 0 128)))
  (object Raft (: id Int) (: wide Int) (map (--> k (Cell k 0 "brown")) (range 0 wide)))
  (object Weight (: mass Int) (: ride Int) (Cell 0 0 (if (== mass 2) then "darkgray" else "silver")))
  (object Crane (: heavy Bool) (list (Cell 0 0 "white") (Cell 0 1 (if heavy then "darkgray" else "silver"))))

  (= px (--> o (.. (.. o origin) x)))
  (= py (--> o (.. (.. o origin) y)))
  (= spans (--> (r x) (& (>= x (px r)) (< x (+ (px r) (.. r wide))))))
  (= onRaft (--> (r q) (& (== (.. q y) (py r)) (spans r (.. q x)))))
  (= riders (--> (r ws) (filter (--> w (== (.. w ride) (.. r id))) ws)))
  (= load (--> (r ws) (sum (map (--> w (.. w mass)) (riders r ws)))))
  (= holds (--> (r q ws) (| (onRaft r q) (any (--> w (== (.. w origin) q)) (riders r ws)))))
  (= lying (--> (q ws) (any (--> w (& (== (.. w ride) -2) (== (.. w origin) q))) ws)))
  (= under (--> w (Position (px w) (+ (py w) 1))))
  (= topOf (--> (r ws) (foldl (--> (m w) (min m (py w))) (py r) (riders r ws))))

  ; a falling weight: lands on a raft (or its stack), comes to rest on the floor or a
  ; lying weight, or falls one cell
  (= fall (--> (w rs ws)
    (let (= below (under w))
         (= hosts (filter (--> r (holds r below ws)) rs))
         (if (> (length hosts) 0) then (updateObj w "ride" (.. (head hosts) id))
          else (if (| (> (.. below y) 15) (lying below ws)) then (updateObj w "ride" -2)
          else (updateObj w "origin" below))))))
  ; a raft's move this tick: +1 sinking, -1 rising, 0 staying
  (= drift (--> (r ws)
    (if (> (load r ws) (.. r wide))
     then (if (| (>= (py r) 15) (any (--> k (lying (Position (+ (px r) k) (+ (py r) 1)) ws)) (range 0 (.. r wide)))) then 0 else 1)
     else (if (| (<= (py r) 8) (any (--> w (& (== (.. w ride) -1) (& (spans r (px w)) (== (py w) (- (topOf r ws) 1))))) ws)) then 0 else -1))))
  (= shiftY (--> (o dy) (updateObj o "origin" (Position (px o) (+ (py o) dy)))))

  (= water (initnext (Water (Position 0 8)) (prev water)))
  (= rafts (initnext (list (Raft 0 2 (Position 1 8)) (Raft 1 3 (Position 6 8)) (Raft 2 4 (Position 11 8)))
                     (prev rafts)))
  (= weights (initnext (list) (prev weights)))
  (= crane (initnext (Crane false (Position 7 1)) (prev crane)))
  (= drops (initnext 0 (prev drops)))
  (= unloads (initnext 0 (prev unloads)))
  (= sunk (initnext 0 (length (filter (--> r (> (py r) 8)) rafts))))

  ; physics: falling weights first (in drop order, so a weight sees those below it already
  ; moved or landed), then rafts move with their riders
  (on true
    (let (= fallen (foldl (--> (acc w) (addObj acc (if (== (.. w ride) -1) then (fall w rafts acc) else w))) (list) weights))
         (= moves (map (--> r (drift r fallen)) rafts))
         (= weights (map (--> w (if (>= (.. w ride) 0) then (shiftY w (at moves (.. w ride))) else w)) fallen))
         (= rafts (map (--> r (shiftY r (at moves (.. r id)))) rafts))))

  (on (& left (> (px crane) 0)) (= crane (moveLeft crane)))
  (on (& right (< (px crane) 15)) (= crane (moveRight crane)))
  (on up (= crane (updateObj crane "heavy" (! (.. crane heavy)))))
  (on (& down (& (< (length weights) 20) (! (any (--> w (== (.. w origin) (Position (px crane) 3))) weights))))
    (let (= weights (addObj weights (Weight (if (.. crane heavy) then 2 else 1) -1 (Position (px crane) 3))))
         (= drops (+ drops 1))))
  (on (clicked weights)
    (let (= hit (head (filter (--> w (== (.. w origin) click)) weights)))
         (= weights (map (--> w (if (& (== (px w) (.. click x)) (& (< (py w) (.. click y)) (== (.. w ride) (.. hit ride))))
                                 then (updateObj w "ride" -1) else w))
                         (removeObj weights (--> w (== (.. w origin) click)))))
         (= unloads (+ unloads 1)))))
