; A swarm: 50 motes bounce around with velocity fields (their colour follows vx),
; 20 gnats take a random step every tick, and an arrow-controlled keeper catches
; any mote that lands on it. A click releases a new mote.
(program
  (= GRID_SIZE 16)

  (object Mote (: vx Int) (: vy Int) (Cell 0 0 (if (> vx 0) then "orange" else "cyan")))
  (object Gnat (Cell 0 0 "lightgreen"))
  (object Keeper (Cell 0 0 "white"))

  (= bounceAxis (--> (coord vel)
    (if (| (< (+ coord vel) 0) (> (+ coord vel) 15)) then (- vel) else vel)))

  (= bounce (--> m
    (let (= nvx (bounceAxis (.. (.. m origin) x) (.. m vx)))
         (= nvy (bounceAxis (.. (.. m origin) y) (.. m vy)))
         (updateObj (updateObj (updateObj m "vx" nvx) "vy" nvy) "origin"
                    (Position (+ (.. (.. m origin) x) nvx) (+ (.. (.. m origin) y) nvy))))))

  ; the cell of the i-th entry of a fixed permutation of the board (37 is odd, so
  ; i -> 37 i + 11 (mod 256) never repeats); randomPositions would put consecutive
  ; draws on near-diagonals, since the generator's low bits are weak
  (= scatter (--> i (let (= slot (% (+ (* i 37) 11) 256)) (Position (/ slot 16) (% slot 16)))))

  (= wander (--> w (updateObj w "origin" (uniformChoice (adjPositions (.. w origin))))))

  (= keeper (initnext (Keeper (Position 8 8)) (prev keeper)))
  (= motes (initnext
    (map (--> p (Mote (uniformChoice (list -1 1)) (uniformChoice (list -1 1)) p))
         (map scatter (range 0 50)))
    (removeObj (updateObj (prev motes) bounce)
               (--> m (== (.. m origin) (.. keeper origin))))))
  (= gnats (initnext (map (--> i (Gnat (scatter i))) (range 50 70))
                     (updateObj (prev gnats) wander)))

  (on left (= keeper (if (> (.. (.. keeper origin) x) 0) then (moveLeft keeper) else keeper)))
  (on right (= keeper (if (< (.. (.. keeper origin) x) 15) then (moveRight keeper) else keeper)))
  (on up (= keeper (if (> (.. (.. keeper origin) y) 0) then (moveUp keeper) else keeper)))
  (on down (= keeper (if (< (.. (.. keeper origin) y) 15) then (moveDown keeper) else keeper)))
  (on clicked (= motes (addObj (updateObj (prev motes) bounce) (Mote 1 -1 click)))))
