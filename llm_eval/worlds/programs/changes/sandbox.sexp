; CHANGED PROGRAM (change detection): water soaks into dry sand without wetting it (the grains stay dry and keep piling), once the trigger has held.
; sandbox: a falling-sand box. left/right move the white dropper along the top row; down
; drops a grain of dry sand (sandybrown) under it and up pours a drop of water (blue).
; Dry sand falls and piles: a grain that cannot fall slides diagonally down to a random
; free side, so dry sand forms heaps on the gray floor and shelves. Water falls and runs
; sideways at random. Water that touches dry sand soaks in: the drop vanishes and every
; dry grain it touched turns wet (brown). Wet sand no longer piles: resting on anything but
; stone it flows sideways like water, so wet grains spread out flat over the stone.
; Water evaporates after 40 ticks. A click on a grain or a drop removes it.
(program
  (= GRID_SIZE 16)

  (object Grain (: wet Bool) (Cell 0 0 (if wet then "brown" else "sandybrown")))
  (object Drop (: age Int) (Cell 0 0 "blue"))
  (object Stone (Cell 0 0 "gray"))
  (object Dropper (Cell 0 0 "white"))

  (= stoneSpots (concat (list
    (map (--> i (Position i 15)) (range 0 16))
    (map (--> i (Position i 10)) (range 2 6))
    (map (--> i (Position i 6)) (range 9 14)))))
  (= stones (map (--> q (Stone q)) stoneSpots))
  (= sides (list -1 1))
  ; a heap of dry sand on the right shelf at the start
  (= heapSpots (list (Position 10 5) (Position 11 5) (Position 12 5) (Position 11 4)))

  (= shiftBy (--> (q sx sy) (Position (+ (.. q x) sx) (+ (.. q y) sy))))
  (= inside (--> q (& (>= (.. q x) 0) (& (< (.. q x) 16) (& (>= (.. q y) 0) (< (.. q y) 16))))))
  (= openAt (--> (taken q) (& (inside q) (& (isFreePos q) (! (in q taken))))))
  (= spotsOf (--> objs (map (--> k (.. k origin)) objs)))
  (= touching (--> (p q) (== (+ (abs (- (.. p x) (.. q x))) (abs (- (.. p y) (.. q y)))) 1)))
  (= goTo (--> (obj q) (updateObj obj "origin" q)))

  ; one grain, against the cells already taken this tick (one random side per grain per tick)
  (= settleGrain (--> (taken g)
    (let (= gAt (.. g origin))
         (= gSide (uniformChoice sides))
         (if (openAt taken (shiftBy gAt 0 1)) then (goTo g (shiftBy gAt 0 1))
          else (if (.. g wet)
           then (if (in (shiftBy gAt 0 1) stoneSpots) then g
                 else (if (openAt taken (shiftBy gAt gSide 0)) then (goTo g (shiftBy gAt gSide 0))
                 else (if (openAt taken (shiftBy gAt (- gSide) 0)) then (goTo g (shiftBy gAt (- gSide) 0))
                 else g)))
           else (if (& (openAt taken (shiftBy gAt gSide 0)) (openAt taken (shiftBy gAt gSide 1)))
                 then (goTo g (shiftBy gAt gSide 1))
                 else (if (& (openAt taken (shiftBy gAt (- gSide) 0)) (openAt taken (shiftBy gAt (- gSide) 1)))
                 then (goTo g (shiftBy gAt (- gSide) 1))
                 else g)))))))
  ; one water drop: fall, else run to a random free side; it ages by one
  (= settleDrop (--> (taken w)
    (let (= wAt (.. w origin))
         (= wSide (uniformChoice sides))
         (= wOld (Drop (+ (.. w age) 1) wAt))
         (if (openAt taken (shiftBy wAt 0 1)) then (goTo wOld (shiftBy wAt 0 1))
          else (if (openAt taken (shiftBy wAt wSide 0)) then (goTo wOld (shiftBy wAt wSide 0))
          else (if (openAt taken (shiftBy wAt (- wSide) 0)) then (goTo wOld (shiftBy wAt (- wSide) 0))
          else wOld))))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= dropped (initnext 0 (prev dropped)))
  (= poured (initnext 0 (prev poured)))
  (= wetted (initnext 0 (prev wetted)))
  (= dug (initnext 0 (prev dug)))
  (= soaked (initnext (list) (prev soaked)))
  (= grains (initnext (map (--> q (Grain false q)) heapSpots) (prev grains)))
  (= drops (initnext (list) (prev drops)))
  (= dropper (initnext (Dropper (Position 4 0)) (prev dropper)))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on (& left (> (.. (.. dropper origin) x) 0)) (= dropper (moveLeft dropper)))
  (on (& right (< (.. (.. dropper origin) x) 15)) (= dropper (moveRight dropper)))

  ; a click on a grain or a drop digs it out
  (on clicked
    (if (any (--> k (== (.. k origin) click)) (concat (list grains drops)))
     then (let (= grains (removeObj grains (--> k (== (.. k origin) click))))
               (= drops (removeObj drops (--> k (== (.. k origin) click))))
               (= dug (+ dug 1)))
     else dug))

  ; physics: grains first (in list order), then drops, then water soaks into dry sand
  (on true
    (let (= movedGrains (foldl (--> (acc g) (addObj acc (settleGrain (spotsOf acc) g))) (list) grains))
         (= grainSpots (spotsOf movedGrains))
         (= movedDrops (foldl (--> (acc w) (addObj acc (settleDrop (concat (list grainSpots (spotsOf acc))) w)))
                              (list) drops))
         (= sinking (filter (--> w (any (--> g (& (! (.. g wet)) (touching (.. g origin) (.. w origin)))) movedGrains)) movedDrops))
         (= soaked (spotsOf sinking))
         (= fresh (filter (--> g (& (! changed) (& (! (.. g wet)) (any (--> p (touching p (.. g origin))) soaked)))) movedGrains))
         (= wetted (+ wetted (length fresh)))
         (= grains (map (--> g (if (& (! changed) (& (! (.. g wet)) (any (--> p (touching p (.. g origin))) soaked)))
                                then (updateObj g "wet" true) else g)) movedGrains))
         (= drops (filter (--> w (& (< (.. w age) 40) (! (in (.. w origin) soaked)))) movedDrops))))

  ; down drops a grain, up pours a drop, into the free cell under the dropper
  (= mouth (--> () (shiftBy (.. dropper origin) 0 1)))
  (on (& down (& (< (length grains) 40) (& (isFreePos ((mouth))) (! (in ((mouth)) (spotsOf (concat (list grains drops))))))))
    (let (= grains (addObj grains (Grain false ((mouth)))))
         (= dropped (+ dropped 1))))
  (on (& up (& (< (length drops) 10) (& (isFreePos ((mouth))) (! (in ((mouth)) (spotsOf (concat (list grains drops))))))))
    (let (= drops (addObj drops (Drop 0 ((mouth)))))
         (= poured (+ poured 1)))))
