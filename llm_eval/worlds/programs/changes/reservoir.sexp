; CHANGED PROGRAM (change detection): the bucket no longer catches water (drops come to rest on it and run off), once the trigger has held.
; reservoir: stone basins hold water. The upper-left and upper-right basins start full;
; the middle basin starts empty. Each basin's floor has an orange plug: a click on a plug
; pulls it and the water drains through the hole, falling into whatever lies below (the
; middle basin, or the floor). up refits every pulled plug whose hole is clear of water.
; Water falls, otherwise flows sideways in its heading and turns round when blocked.
; left/right move the white bucket along the floor; water that comes down onto the bucket
; is caught (a gold pip on the top row per drop). down pours a drop from the spout.
(program
  (= GRID_SIZE 16)

  (object Drop (: heading Int) (Cell 0 0 "blue"))
  (object Stone (Cell 0 0 "gray"))
  (object Plug (Cell 0 0 "orange"))
  (object Bucket (Cell 0 0 "white"))
  (object Spout (Cell 0 0 "lightblue"))
  (object Pip (Cell 0 0 "gold"))

  (= plugSpots (list (Position 4 5) (Position 12 7) (Position 7 11)))
  (= stoneSpots (concat (list
    (map (--> i (Position i 15)) (range 0 16))
    (filter (--> q (! (in q plugSpots))) (concat (list
      (map (--> i (Position i 5)) (range 1 7))
      (map (--> i (Position i 7)) (range 9 15))
      (map (--> i (Position i 11)) (range 3 11)))))
    (map (--> i (Position 1 i)) (range 2 5))
    (map (--> i (Position 6 i)) (range 2 5))
    (map (--> i (Position 9 i)) (range 4 7))
    (map (--> i (Position 14 i)) (range 4 7))
    (map (--> i (Position 3 i)) (range 8 11))
    (map (--> i (Position 10 i)) (range 8 11)))))
  (= stones (map (--> q (Stone q)) stoneSpots))
  (= spout (Spout (Position 4 0)))

  (= shiftBy (--> (q sx sy) (Position (+ (.. q x) sx) (+ (.. q y) sy))))
  (= inside (--> q (& (>= (.. q x) 0) (& (< (.. q x) 16) (& (>= (.. q y) 0) (< (.. q y) 16))))))
  (= openAt (--> (taken q) (& (inside q) (& (isFreePos q) (! (in q taken))))))
  (= spotsOf (--> objs (map (--> k (.. k origin)) objs)))

  ; one drop, against the cells other drops entered this tick: fall, else step in its
  ; heading, else turn round
  (= flowDrop (--> (taken w)
    (let (= wAt (.. w origin))
         (= wAhead (shiftBy wAt (.. w heading) 0))
         (if (openAt taken (shiftBy wAt 0 1)) then (updateObj w "origin" (shiftBy wAt 0 1))
          else (if (openAt taken wAhead) then (updateObj w "origin" wAhead)
          else (updateObj w "heading" (- (.. w heading))))))))
  (= caughtBy (--> (w b) (== (.. w origin) (shiftBy (.. b origin) 0 -1))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= opened (initnext 0 (prev opened)))
  (= refits (initnext 0 (prev refits)))
  (= poured (initnext 0 (prev poured)))
  (= caught (initnext 0 (prev caught)))
  (= plugs (initnext (map (--> q (Plug q)) plugSpots) (prev plugs)))
  (= drops (initnext (concat (list
      (map (--> i (Drop 1 (Position i 4))) (range 2 6)) (map (--> i (Drop -1 (Position i 3))) (range 2 6))
      (map (--> i (Drop 1 (Position i 6))) (range 10 14)) (map (--> i (Drop -1 (Position i 5))) (range 10 14))))
    (prev drops)))
  (= bucket (initnext (Bucket (Position 1 14)) (prev bucket)))
  (= pips (initnext (list) (map (--> i (Pip (Position (- 15 i) 0))) (range 0 (min caught 8)))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on (& left (& (> (.. (.. bucket origin) x) 0) (isFreePos (shiftBy (.. bucket origin) -1 0))))
    (= bucket (moveLeft bucket)))
  (on (& right (& (< (.. (.. bucket origin) x) 15) (isFreePos (shiftBy (.. bucket origin) 1 0))))
    (= bucket (moveRight bucket)))

  ; a click on a plug pulls it; up refits every pulled plug whose hole is clear
  (on (clicked plugs)
    (let (= plugs (removeObj plugs (--> k (== (.. k origin) click))))
         (= opened (+ opened 1))))
  (on (& up (< (length plugs) 3))
    (let (= holes (filter (--> q (& (! (in q (spotsOf plugs))) (! (in q (spotsOf drops))))) plugSpots))
         (= plugs (addObj plugs (map (--> q (Plug q)) holes)))
         (= refits (+ refits (length holes)))))

  ; water: every drop in list order; drops that come down onto the bucket are caught
  (on true
    (let (= movedDrops (foldl (--> (acc w) (addObj acc (flowDrop (spotsOf acc) w))) (list) drops))
         (= caught (+ caught (length (filter (--> w (& (! changed) (caughtBy w bucket))) movedDrops))))
         (= drops (removeObj movedDrops (--> w (& (! changed) (caughtBy w bucket)))))))

  ; down pours a drop from the spout, into the upper-left basin
  (on (& down (& (< (length drops) 30) (& (isFreePos (Position 4 1)) (! (in (Position 4 1) (spotsOf drops))))))
    (let (= drops (addObj drops (Drop 1 (Position 4 1))))
         (= poured (+ poured 1)))))
