; CHANGED PROGRAM (change detection): walls no longer stop the particle (it can step onto a wall cell), once the trigger has held.
; wander: a 5x5 box with one yellow particle that random-walks: on every tick it takes one
; step left, right, up or down, or stays put, uniformly at random; a step into a wall or off
; the grid is not taken (it stays). An arrow key pushes the particle one step that way
; instead of the random step of that tick. A click on an empty cell builds a gray wall
; there, a click on a wall knocks it down; a click on the particle does nothing.
(program
  (= GRID_SIZE 5)

  (object Dot (Cell 0 0 "yellow"))
  (object Wall (Cell 0 0 "gray"))

  (= steps (list (Position 0 0) (Position -1 0) (Position 1 0) (Position 0 -1) (Position 0 1)))
  (= shift (--> (p d) (Position (+ (.. p x) (.. d x)) (+ (.. p y) (.. d y)))))
  (= onGrid (--> p (& (& (>= (.. p x) 0) (< (.. p x) 5)) (& (>= (.. p y) 0) (< (.. p y) 5)))))
  (= walled (--> p (any (--> w (== (.. w origin) p)) walls)))
  (= stepTo (--> (o d) (let (= there (shift (.. o origin) d))
                            (if (& (onGrid there) (| changed (! (walled there))))
                             then (updateObj o "origin" there) else o))))

  (= walls (initnext (list) (prev walls)))
  (= built (initnext 0 (prev built)))
  (= pushes (initnext 0 (prev pushes)))
  (= dot (initnext (Dot (Position 2 2)) (stepTo (prev dot) (uniformChoice steps))))

  (on left (let (= dot (stepTo dot (Position -1 0))) (= pushes (+ pushes 1))))
  (on right (let (= dot (stepTo dot (Position 1 0))) (= pushes (+ pushes 1))))
  (on up (let (= dot (stepTo dot (Position 0 -1))) (= pushes (+ pushes 1))))
  (on down (let (= dot (stepTo dot (Position 0 1))) (= pushes (+ pushes 1))))
  (on (& clicked (& (onGrid click) (!= click (.. dot origin))))
    (if (walled click)
     then (= walls (removeObj walls (--> w (== (.. w origin) click))))
     else (let (= walls (addObj walls (Wall click))) (= built (+ built 1)))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true)))
