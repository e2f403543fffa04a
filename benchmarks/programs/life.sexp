; Conway's Game of Life on the whole 16x16 board: 256 cells recomputed every tick.
; The cells stay in the x-major order allPositions produces, so the cell at (x, y)
; is (at cells (+ (* x 16) y)) and each neighbour count costs eight indexed reads.
; A click toggles the clicked cell after the generation step; up adds a glider.
(program
  (= GRID_SIZE 16)
  (= background "black")

  (object LifeCell (: alive Bool) (Cell 0 0 (if alive then "yellow" else "black")))

  ; a glider in the top-left corner, random cells on the right half
  (= glider (list (Position 1 0) (Position 2 1) (Position 0 2) (Position 1 2) (Position 2 2)))
  (= seedAlive (--> p
    (if (in p glider) then true
     else (if (> (.. p x) 7) then (== (uniformChoice (list 0 0 1)) 1) else false))))

  ; 1 if the cell at (ax, ay) is on the board and alive, else 0
  (= aliveAt (--> (gen ax ay)
    (if (& (& (>= ax 0) (< ax 16)) (& (>= ay 0) (< ay 16)))
     then (if (.. (at gen (+ (* ax 16) ay)) alive) then 1 else 0)
     else 0)))

  (= liveNeighbours (--> (gen cx cy)
    (+ (+ (+ (aliveAt gen (- cx 1) (- cy 1)) (aliveAt gen (- cx 1) cy))
          (+ (aliveAt gen (- cx 1) (+ cy 1)) (aliveAt gen cx (- cy 1))))
       (+ (+ (aliveAt gen cx (+ cy 1)) (aliveAt gen (+ cx 1) (- cy 1)))
          (+ (aliveAt gen (+ cx 1) cy) (aliveAt gen (+ cx 1) (+ cy 1)))))))

  (= nextCell (--> (gen c)
    (let (= lifeCount (liveNeighbours gen (.. (.. c origin) x) (.. (.. c origin) y)))
         (updateObj c "alive"
           (if (.. c alive) then (| (== lifeCount 2) (== lifeCount 3)) else (== lifeCount 3))))))

  (= nextGen (--> gen (map (--> c (nextCell gen c)) gen)))

  (= toggleAt (--> (gen spot)
    (updateObj gen (--> c (updateObj c "alive" (! (.. c alive))))
                   (--> c (== (.. c origin) spot)))))

  (= cells (initnext (map (--> p (LifeCell (seedAlive p) p)) (allPositions 16))
                     (nextGen (prev cells))))

  ; a new glider whose 3x3 box has its top-left corner at a random spot
  (= addGlider (--> (gen corner)
    (updateObj gen (--> c (updateObj c "alive" true))
                   (--> c (in (deltaPos corner (.. c origin)) glider)))))

  (on clicked (= cells (toggleAt (nextGen (prev cells)) click)))
  (on up (= cells (addGlider (nextGen (prev cells))
                             (Position (uniformChoice (range 0 14)) (uniformChoice (range 0 14)))))))
