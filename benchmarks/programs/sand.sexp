; Falling sand: 108 grains start as a block and pour down onto a floor, two ledges
; and the side walls. A grain falls with nextSolid; when it cannot, it slides down
; a diagonal that isFree. Left/right move the spout, down pours three grains under
; it, a click drops a grain on a free cell (see quiet), and up drains the three
; floor cells under the spout.
(program
  (= GRID_SIZE 16)

  (object Grain (Cell 0 0 "sandybrown"))
  (object Wall (Cell 0 0 "gray"))
  (object Spout (Cell 0 0 "red"))

  (= walls (concat (list
    (map (--> wx (Wall (Position wx 15))) (range 0 16))
    (map (--> wy (Wall (Position 0 wy))) (range 0 15))
    (map (--> wy (Wall (Position 15 wy))) (range 0 15))
    (map (--> wx (Wall (Position wx 12))) (range 3 6))
    (map (--> wx (Wall (Position wx 11))) (range 10 13)))))

  ; a blocked grain slides down one diagonal if both cells on that side are free. All
  ; grains take the same side when their x has the same parity, alternating every tick,
  ; so two grains never slide into the same cell in one tick.
  (= slideGrain (--> g
    (let (= side (if (== (% (+ (.. (.. g origin) x) (prev clock)) 2) 0) then -1 else 1))
         (if (& (isFreePos (Position (+ (.. (.. g origin) x) side) (.. (.. g origin) y)))
                (isFree (move g (Position side 1))))
          then (move g (Position side 1)) else g))))

  (= settle (--> g
    (let (= fell (nextSolid g))
         (if (!= (.. fell origin) (.. g origin)) then fell else (slideGrain g)))))

  ; a new grain may go on a free cell that no grain can fall or slide into this tick
  ; (collision tests see the cells as they were at the start of the tick)
  (= enterable (--> q (| (isFreePos q) (== q (.. spout origin)))))
  (= quiet (--> spot
    (& (isFreePos spot)
       (& (enterable (Position (- (.. spot x) 1) (- (.. spot y) 1)))
          (& (enterable (Position (.. spot x) (- (.. spot y) 1)))
             (enterable (Position (+ (.. spot x) 1) (- (.. spot y) 1))))))))

  ; new grains on the quiet cells of the three under the spout
  (= pour (--> nozzle
    (map (--> spot (Grain spot))
         (filter quiet (map (--> sx (Position sx (+ (.. nozzle y) 1)))
                            (range (- (.. nozzle x) 1) (+ (.. nozzle x) 2)))))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= spout (initnext (Spout (Position 7 0)) (prev spout)))
  (= grains (initnext (map (--> p (Grain p)) (rect (Position 2 1) (Position 14 10)))
                      (updateObj (prev grains) settle)))

  (on left (= spout (moveLeftNoCollision spout)))
  (on right (= spout (moveRightNoCollision spout)))
  (on down (= grains (addObj (updateObj (prev grains) settle) (pour (.. spout origin)))))
  (on (& clicked (quiet click))
    (= grains (addObj (updateObj (prev grains) settle) (Grain click))))
  (on up
    (= grains (removeObj (updateObj (prev grains) settle)
                         (--> g (& (== (.. (.. g origin) y) 14)
                                   (< (abs (- (.. (.. g origin) x) (.. (.. spout origin) x))) 2)))))))
