; CHANGED PROGRAM (change detection): an open drain lets two units of water out per tick instead of one, once the trigger has held.
; rain: a 16x16 rainy day. On most ticks (16 in 17) one raindrop (light blue) appears under
; the dark cloud (row 0) in a random column and falls one cell per tick. Three stone basins stand on the
; floor; a drop that reaches a basin's rim falls in and raises its water (blue, filling from
; the bottom row by row, 16 units when full; more rain spills over and is lost). Drops that
; hit a wall top splash away. left/right move the umbrella (row 5); up and down tilt it to
; the left or to the right (the orange end is the low one): drops that hit the umbrella run
; off its low end and fall on from the cell beyond it. A click on a basin's drain (dark gray
; plug in the floor) opens it (a black hole) or closes it: an open drain lets one unit of
; water out per tick.
(program
  (= GRID_SIZE 16)

  (object Drop (Cell 0 0 "lightblue"))
  (object Umbrella (: tilt Int)
    (list (Cell -1 0 (if (== tilt -1) then "orange" else "white"))
          (Cell 0 0 "white")
          (Cell 1 0 (if (== tilt 1) then "orange" else "white"))
          (Cell 0 1 "brown")))
  (object Basin (: level Int) (: gain Int) (: open Bool)
    (concat (list
      (map (--> k (Cell (% k 4) (if (< k level) then (- 0 (/ k 4)) else 40) "blue")) (range 0 16))
      (list (Cell 1 1 (if open then "black" else "darkgray"))))))
  (object Stone (Cell 0 0 "gray"))
  (object Cloud (Cell 0 0 "darkgray"))

  (= drainSpots (list (Position 2 15) (Position 7 15) (Position 12 15)))
  (= wallCols (list 0 5 10 15))
  (= stones (concat (list
    (map (--> q (Stone q)) (filter (--> q (! (in q drainSpots))) (map (--> i (Position i 15)) (range 0 16))))
    (concat (map (--> c (map (--> j (Stone (Position c j))) (range 11 15))) wallCols)))))
  (= clouds (map (--> i (Cloud (Position i 0))) (range 0 16)))
  ; 17 choices, -1 = no drop this tick (a power-of-two choice count draws badly from
  ; the Lehmer generator's low bits)
  (= columns (range -1 16))
  (= UMB_ROW 5)

  ; which basin (0, 1, 2) a column pours into, -1 for a wall column
  (= basinOf (--> cx (if (in cx wallCols) then -1 else (/ cx 5))))
  ; one tick of a falling drop: down one cell, or off the low end of the umbrella if it hits it
  (= fall (--> dr
    (let (= fx (.. (.. dr origin) x))
         (= fy (+ (.. (.. dr origin) y) 1))
         (if (& (== fy UMB_ROW) (<= (abs (- fx (.. (.. umbrella origin) x))) 1))
          then (updateObj dr "origin" (Position (+ (.. (.. umbrella origin) x) (* 2 (.. umbrella tilt))) fy))
          else (updateObj dr "origin" (Position fx fy))))))
  (= hitUmbrella (--> dr (& (== (+ (.. (.. dr origin) y) 1) UMB_ROW)
                            (<= (abs (- (.. (.. dr origin) x) (.. (.. umbrella origin) x))) 1))))
  (= offGrid (--> dr (| (< (.. (.. dr origin) x) 0) (> (.. (.. dr origin) x) 15))))
  (= landing (--> dr (>= (.. (.. dr origin) y) 11)))
  (= pourInto (--> (b dropsIn)
    (let (= bi (/ (.. (.. b origin) x) 5))
         (= g (length (filter (--> dr (== (basinOf (.. (.. dr origin) x)) bi)) dropsIn)))
         (= full (min 16 (+ (.. b level) g)))
         (= out (if (& (.. b open) (> full 0)) then (if changed then (min 2 full) else 1) else 0))
         (= drained (+ drained out))
         (= spilled (+ spilled (- (+ (.. b level) g) full)))
         (updateObj (updateObj b "gain" g) "level" (- full out)))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= toggles (initnext 0 (prev toggles)))
  (= drained (initnext 0 (prev drained)))
  (= spilled (initnext 0 (prev spilled)))
  (= shed (initnext 0 (prev shed)))
  (= basins (initnext (list (Basin 10 0 false (Position 1 14)) (Basin 7 0 false (Position 6 14))
                            (Basin 5 0 false (Position 11 14)))
                      (prev basins)))
  (= drops (initnext (list (Drop (Position 3 2)) (Drop (Position 8 4)) (Drop (Position 13 7)))
                     (prev drops)))
  (= umbrella (initnext (Umbrella 1 (Position 7 UMB_ROW)) (prev umbrella)))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on (& left (> (.. (.. umbrella origin) x) 1)) (= umbrella (moveLeft umbrella)))
  (on (& right (< (.. (.. umbrella origin) x) 14)) (= umbrella (moveRight umbrella)))
  (on up (= umbrella (updateObj umbrella "tilt" -1)))
  (on down (= umbrella (updateObj umbrella "tilt" 1)))
  (on (& clicked (in click drainSpots))
    (let (= basins (map (--> b (if (== (Position (+ (.. (.. b origin) x) 1) 15) click)
                                then (updateObj b "open" (! (.. b open))) else b)) basins))
         (= toggles (+ toggles 1))))

  (on true
    (let (= shed (+ shed (length (filter hitUmbrella drops))))
         (= moved (removeObj (map fall drops) offGrid))
         (= inRim (filter landing moved))
         (= basins (map (--> b (pourInto b inRim)) basins))
         (= col (uniformChoice columns))
         (= drops (if (>= col 0) then (addObj (removeObj moved landing) (Drop (Position col 1)))
                   else (removeObj moved landing))))))
