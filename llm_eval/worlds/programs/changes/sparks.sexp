; CHANGED PROGRAM (change detection): the torch emits a spark every 2 ticks instead of every 6, once the trigger has held.
; sparks: a torch emits a spark every 6 ticks and a click spawns one; sparks wander at
; random, fade yellow -> orange -> red and die after 24 ticks. A click on a spark turns it
; into a blue crystal; a wandering spark that touches a crystal crystallises too, so
; crystals grow like frost. Arrows move a white jar that catches sparks (gold bar, row 0);
; a click on a crystal shatters it.
(program
  (= GRID_SIZE 16)

  (object Spark (: age Int) (Cell 0 0 (if (< age 8) then "yellow" else (if (< age 16) then "orange" else "red"))))
  (object Crystal (Cell 0 0 "blue"))
  (object Jar (Cell 0 0 "white"))
  (object Torch (Cell 0 0 "darkred"))
  (object Mark (Cell 0 0 "gold"))

  (= torch (Torch (Position 12 12)))
  (= steps (list (Position 1 0) (Position -1 0) (Position 0 1) (Position 0 -1) (Position 0 0)))
  (= clampTo (--> v (max 0 (min 15 v))))
  (= wander (--> s
    (let (= jump (uniformChoice steps))
         (Spark (+ (.. s age) 1)
                (Position (clampTo (+ (.. (.. s origin) x) (.. jump x)))
                          (clampTo (+ (.. (.. s origin) y) (.. jump y))))))))
  (= touching (--> (s cs)
    (any (--> c (<= (+ (abs (- (.. (.. c origin) x) (.. (.. s origin) x)))
                       (abs (- (.. (.. c origin) y) (.. (.. s origin) y)))) 1)) cs)))
  (= onJar (--> s (== (.. s origin) (.. jar origin))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= score (initnext 0 (prev score)))
  (= frozen (initnext 0 (prev frozen)))
  (= crystals (initnext (list) (prev crystals)))
  (= sparks (initnext (list (Spark 0 (Position 12 11))) (prev sparks)))
  (= jar (initnext (Jar (Position 3 3)) (prev jar)))
  (= bar (initnext (list) (map (--> i (Mark (Position i 0))) (range 0 (min score 16)))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on (& left (> (.. (.. jar origin) x) 0)) (= jar (moveLeft jar)))
  (on (& right (< (.. (.. jar origin) x) 15)) (= jar (moveRight jar)))
  (on (& up (> (.. (.. jar origin) y) 1)) (= jar (moveUp jar)))
  (on (& down (< (.. (.. jar origin) y) 15)) (= jar (moveDown jar)))

  ; a click: on a spark -> crystal, on a crystal -> shattered, elsewhere -> a new spark
  (= atClick (--> o (== (.. o origin) click)))
  (on clicked
    (if (any atClick sparks)
     then (if (< (length crystals) 40)
           then (let (= sparks (removeObj sparks atClick))
                     (= frozen (+ frozen 1))
                     (= crystals (addObj crystals (Crystal click))))
           else sparks)
     else (if (any atClick crystals)
           then (= crystals (removeObj crystals atClick))
           else (if (& (< (length sparks) 10) (== click (Position (clampTo (.. click x)) (clampTo (.. click y)))))
                 then (= sparks (addObj sparks (Spark 0 click)))
                 else sparks))))

  ; time passes only on ticks without a click
  (on (! ((clicked)))
    (let (= early (filter onJar sparks))
         (= moved (map wander (removeObj sparks onJar)))
         (= caught (+ (length early) (length (filter onJar moved))))
         (= flying (removeObj moved onJar))
         (= sticking (if (< (length crystals) 40)
                      then (filter (--> s (touching s crystals)) flying) else (list)))
         (= crystals (addObj crystals (map (--> s (Crystal (.. s origin))) sticking)))
         (= flying (removeObj flying (--> s (| (touching s sticking) (>= (.. s age) 24)))))
         (= score (+ score caught))
         (= sparks (if (& (== (% clock (if changed then 2 else 6)) 0) (< (length flying) 10))
                    then (addObj flying (Spark 0 (Position 12 11))) else flying)))))
