; CHANGED PROGRAM (change detection): wolves move every tick instead of every third tick, once the trigger has held.
; hunters: a blue shepherd (arrows), white sheep that wander at random and flee from the
; shepherd when it comes within 2 cells, and two red wolves that every third tick step
; towards the nearest sheep outside the brown-fenced pen (or towards the shepherd when
; there is none). A wolf on a sheep eats it, a wolf on the shepherd sends it home;
; either way the wolf then sleeps (dark red) for 6 ticks. Sheep rest inside the pen,
; which wolves cannot enter. A click on a wolf puts it to sleep
; (dark red) for 8 ticks. Eaten sheep are replaced now and then.
(program
  (= GRID_SIZE 14)

  (object Shepherd (Cell 0 0 "blue"))
  (object Sheep (Cell 0 0 "white"))
  (object Wolf (: nap Int) (Cell 0 0 (if (> nap 0) then "darkred" else "red")))
  (object Fence (Cell 0 0 "brown"))

  (= fenceSpots (concat (list
    (map (--> i (Position i 1)) (range 9 14))
    (map (--> i (Position 9 i)) (range 2 6))
    (map (--> i (Position 13 i)) (range 2 6))
    (list (Position 10 5) (Position 12 5)))))
  (= fences (map (--> q (Fence q)) fenceSpots))
  (= penCells (rect (Position 10 2) (Position 13 5)))
  (= gate (Position 11 5))
  (= homeSpot (Position 2 2))
  (= pasture (rect (Position 0 7) (Position 7 14)))
  (= wanders (list (Position 1 0) (Position -1 0) (Position 0 1) (Position 0 -1) (Position 0 0)))

  (= inGrid (--> q (& (& (>= (.. q x) 0) (< (.. q x) 14)) (& (>= (.. q y) 0) (< (.. q y) 14)))))
  (= inPen (--> q (in q penCells)))
  (= wolfBarred (--> q (| (! (inGrid q)) (| (in q fenceSpots) (| (inPen q) (== q gate))))))
  (= gap (--> (a b) (+ (abs (- (.. (.. a origin) x) (.. (.. b origin) x)))
                       (abs (- (.. (.. a origin) y) (.. (.. b origin) y))))))
  (= originsOf (--> os (map (--> o (.. o origin)) os)))

  ; sheep move in list order and never share a cell
  (= graze (--> (done sh)
    (let (= taken (originsOf (concat (list done sheep))))
         (= want (if (<= (gap shepherd sh) 2) then (unitVector shepherd sh)
                  else (if (inPen (.. sh origin)) then (Position 0 0) else (uniformChoice wanders))))
         (= aim (movePos (.. sh origin) want))
         (if (& (inGrid aim) (& (! (in aim fenceSpots)) (& (! (in aim taken)) (!= aim (.. shepherd origin)))))
          then (addObj done (updateObj sh "origin" aim))
          else (addObj done sh)))))

  (= preyOf (--> w
    (let (= loose (filter (--> sh (! (inPen (.. sh origin)))) sheep))
         (if (== (length loose) 0) then shepherd else (closest w loose)))))
  (= hunt (--> (done w)
    (if (> (.. w nap) 0) then (addObj done (updateObj w "nap" (- (.. w nap) 1)))
     else (if (& (! changed) (!= (% clock 3) 0)) then (addObj done w)
     else (let (= prey (preyOf w))
               (= dx (sign (- (.. (.. prey origin) x) (.. (.. w origin) x))))
               (= dy (sign (- (.. (.. prey origin) y) (.. (.. w origin) y))))
               (= first (movePos (.. w origin) (unitVector w prey)))
               (= second (movePos (.. w origin) (if (== (.. first y) (.. (.. w origin) y)) then (Position 0 dy) else (Position dx 0))))
               (= pack (originsOf done))
               (= aim (if (& (! (wolfBarred first)) (! (in first pack))) then first
                       else (if (& (! (wolfBarred second)) (! (in second pack))) then second else (.. w origin))))
               (addObj done (updateObj w "origin" aim)))))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= eaten (initnext 0 (prev eaten)))
  (= bites (initnext 0 (prev bites)))
  (= penned (initnext 0 (prev penned)))
  (= flock (foldl (--> (chosen i) (addObj chosen (Sheep (uniformChoice (filter (--> q (! (in q (originsOf chosen)))) pasture)))))
                 (list) (range 0 5)))
  (= sheep (initnext flock (prev sheep)))
  (= wolves (initnext (list (Wolf 0 (Position 13 13)) (Wolf 0 (Position 7 0))) (prev wolves)))
  (= shepherd (initnext (Shepherd homeSpot) (prev shepherd)))

  (= walk (--> aim
    (if (& (inGrid aim) (& (! (in aim fenceSpots)) (! (in aim (originsOf sheep)))))
     then (= shepherd (updateObj shepherd "origin" aim)) else shepherd)))
  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on left (walk (moveLeftPos (.. shepherd origin))))
  (on right (walk (moveRightPos (.. shepherd origin))))
  (on up (walk (moveUpPos (.. shepherd origin))))
  (on down (walk (moveDownPos (.. shepherd origin))))
  (on (clicked wolves)
    (= wolves (map (--> w (if (== (.. w origin) click) then (updateObj w "nap" 8) else w)) wolves)))

  (on true
    (let (= sheep (foldl graze (list) sheep))
         (= wolves (foldl hunt (list) wolves))
         (= awake (originsOf (filter (--> w (== (.. w nap) 0)) wolves)))
         (= meals (concat (list (list (.. shepherd origin)) (originsOf sheep))))
         (= wolves (map (--> w (if (& (== (.. w nap) 0) (in (.. w origin) meals)) then (updateObj w "nap" 6) else w)) wolves))
         (= eaten (+ eaten (length (filter (--> sh (in (.. sh origin) awake)) sheep))))
         (= sheep (removeObj sheep (--> sh (in (.. sh origin) awake))))
         (if (in (.. shepherd origin) awake)
          then (let (= shepherd (Shepherd homeSpot)) (= bites (+ bites 1)))
          else shepherd)
         (= penned (length (filter (--> sh (inPen (.. sh origin))) sheep)))
         (if (& (== (% clock 12) 11) (< (length sheep) 5))
          then (let (= free (filter (--> q (& (! (in q (originsOf sheep))) (! (in q awake)))) pasture))
                    (= sheep (addObj sheep (Sheep (uniformChoice free)))))
          else sheep))))
