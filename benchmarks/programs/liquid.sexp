; Water over terrain: two rock shelves with holes, a floor with drains at both
; ends. Liquid drops move with nextLiquid (fall, else step toward the nearest hole
; in the row below); frozen drops are ice and fall as solids with nextSolid.
; Drops that reach a drain re-enter at a random spot on the top row. Moves that
; would put two drops on one cell are held back a tick.
; A click adds a drop, up freezes the water in the lower basin, down thaws all ice.
(program
  (= GRID_SIZE 16)

  (object Drop (: frozen Bool) (Cell 0 0 (if frozen then "lightblue" else "blue")))
  (object Rock (Cell 0 0 "gray"))

  (= terrain (concat (list
    (map (--> rx (Rock (Position rx 5)))
         (filter (--> rx (! (in rx (list 3 9 12)))) (range 0 16)))
    (map (--> rx (Rock (Position rx 10)))
         (filter (--> rx (! (in rx (list 1 6 14)))) (range 0 16)))
    (map (--> rx (Rock (Position rx 15))) (range 1 15))
    (list (Rock (Position 8 8)) (Rock (Position 4 13)) (Rock (Position 11 13))))))

  ; a cell is calm when it is free and no drop can fall or step into it this tick
  ; (collision tests see the cells as they were at the start of the tick, so two
  ; drops heading for the same free cell would otherwise merge for good)
  (= calm (--> spot
    (& (isFreePos spot)
       (& (isFreePos (Position (.. spot x) (- (.. spot y) 1)))
          (& (isFreePos (Position (- (.. spot x) 1) (.. spot y)))
             (isFreePos (Position (+ (.. spot x) 1) (.. spot y))))))))

  ; nextLiquid, but sideways steps go right on even ticks and left on odd ones, and
  ; only into a cell nothing falls into, so no two drops ever land on one cell
  (= flowWater (--> d
    (let (= flowed (nextLiquid d))
         (= stepX (- (.. (.. flowed origin) x) (.. (.. d origin) x)))
         (if (== stepX 0) then flowed
          else (if (& (== stepX (if (== (% (prev clock) 2) 0) then 1 else -1))
                      (isFreePos (Position (.. (.. flowed origin) x) (- (.. (.. d origin) y) 1))))
                then flowed else d)))))

  ; a drop in a drain goes back to a random calm spot on its half of the top row,
  ; or waits in the drain
  (= recycle (--> d
    (let (= inlet (Position (if (== (.. (.. d origin) x) 0)
                             then (uniformChoice (range 1 8)) else (uniformChoice (range 8 15))) 0))
         (if (calm inlet) then (updateObj d "origin" inlet) else d))))

  (= flowDrop (--> d
    (if (== (.. (.. d origin) y) 15) then (recycle d)
     else (if (.. d frozen) then (nextSolid d) else (flowWater d)))))

  (= flowAll (--> ds (map flowDrop ds)))

  (= freezeLow (--> ds
    (updateObj ds (--> d (updateObj d "frozen" true))
                  (--> d (> (.. (.. d origin) y) 10)))))

  (= thawAll (--> ds
    (updateObj ds (--> d (updateObj d "frozen" false)) (--> d (.. d frozen)))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= drops (initnext
    (map (--> p (Drop false p))
         (concat (list (rect (Position 2 0) (Position 14 4)) (rect (Position 1 6) (Position 15 8)))))
    (flowAll (prev drops))))

  (on (& clicked (calm click))
    (= drops (addObj (flowAll (prev drops)) (Drop false click))))
  (on up (= drops (flowAll (freezeLow (prev drops)))))
  (on down (= drops (flowAll (thawAll (prev drops))))))
