; CHANGED PROGRAM (change detection): the loaded colour cycles backwards (red -> yellow -> blue) on up and on every drop, once the trigger has held.
; gravity: a crane on the top row drops coloured blocks into a walled well; blocks fall
; one cell per tick and stack. A full row of the well clears (gold tally on the left);
; three blocks of one colour stacked in a column fuse and vanish (magenta tally).
; left/right move the crane, down drops its block, up changes the loaded colour,
; a click on a block smashes it.
(program
  (= GRID_SIZE 12)

  (object Crane (: load String) (list (Cell -1 0 "white") (Cell 0 0 load) (Cell 1 0 "white")))
  (object Block (: shade String) (: moving Bool) (Cell 0 0 shade))
  (object Wall (Cell 0 0 "gray"))
  (object Tally (: hue String) (Cell 0 0 hue))

  (= shades (list "red" "blue" "yellow"))
  (= walls (concat (list
    (map (--> wy (Wall (Position 2 wy))) (range 1 12))
    (map (--> wy (Wall (Position 9 wy))) (range 1 12))
    (map (--> wx (Wall (Position wx 11))) (range 3 9)))))

  (= spotBelow (--> b (Position (.. (.. b origin) x) (+ (.. (.. b origin) y) 1))))
  (= shadeAt (--> (bs p) (map (--> b (.. b shade)) (filter (--> b (== (.. b origin) p)) bs))))
  (= sameBelow (--> (bs b k)
    (in (.. b shade) (shadeAt bs (Position (.. (.. b origin) x) (+ (.. (.. b origin) y) k))))))

  ; one block falls a cell if the cell below was free at the last frame
  (= fall (--> b
    (if (isFreePos (spotBelow b))
     then (updateObj (moveDown b) "moving" true)
     else (updateObj b "moving" false))))

  (= rowCount (--> (bs r) (length (filter (--> b (== (.. (.. b origin) y) r)) bs))))

  ; blocks that were falling and now rest decide what clears
  (= landedOf (--> bs (filter (--> b (& (.. b moving) (! (isFreePos (spotBelow b))))) bs)))
  (= fuseTops (--> (bs ls) (filter (--> b (& (sameBelow bs b 1) (sameBelow bs b 2))) ls)))
  (= fullRows (--> (bs ls)
    (filter (--> r (& (any (--> b (== (.. (.. b origin) y) r)) ls) (== (rowCount bs r) 6)))
            (range 1 11))))
  (= fusedSpots (--> tops
    (concat (map (--> t (list (.. t origin) (spotBelow t)
                              (Position (.. (.. t origin) x) (+ (.. (.. t origin) y) 2)))) tops))))

  (= pick (initnext 0 (prev pick)))
  (= drops (initnext 0 (prev drops)))
  (= lines (initnext 0 (prev lines)))
  (= fused (initnext 0 (prev fused)))
  (= blocks (initnext (list) (prev blocks)))
  (= crane (initnext (Crane "red" (Position 5 0))
    (updateObj (prev crane) "load" (at shades (% pick 3)))))
  (= tallies (initnext (list)
    (concat (list (map (--> i (Tally "gold" (Position 0 (- 10 i)))) (range 0 (min lines 10)))
                  (map (--> i (Tally "magenta" (Position 1 (- 10 i)))) (range 0 (min fused 10)))))))

  ; physics first, so inputs act on the settled well
  (on true
    (let (= landedNow (landedOf blocks))
         (= tops (fuseTops blocks landedNow))
         (= rowsGone (fullRows blocks landedNow))
         (= gone (fusedSpots tops))
         (= blocks (map fall (removeObj blocks
           (--> b (| (in (.. b origin) gone) (in (.. (.. b origin) y) rowsGone))))))
         (= lines (+ lines (length rowsGone)))
         (= fused (+ fused (length tops)))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on left (= crane (if (> (.. (.. crane origin) x) 3) then (moveLeft crane) else crane)))
  (on right (= crane (if (< (.. (.. crane origin) x) 8) then (moveRight crane) else crane)))
  (on up (= pick (+ pick (if changed then 2 else 1))))
  (on (& down (isFreePos (Position (.. (.. crane origin) x) 1)))
    (let (= blocks (addObj blocks (Block (at shades (% pick 3)) true
                                        (Position (.. (.. crane origin) x) 1))))
         (= pick (+ pick (if changed then 2 else 1)))
         (= drops (+ drops 1))))
  (on (clicked blocks) (= blocks (removeObj blocks (--> b (== (.. b origin) click))))))
