; CHANGED PROGRAM (change detection): plants grow a cell every 2 ticks instead of every 3, once the trigger has held.
; garden: a click on the brown soil (bottom row) plants a sprout in that column. Plants
; drink water and grow one cell every 3 ticks while watered, up to 5 cells, and then
; bloom with a random flower colour. A plant dry for 12 ticks wilts (brown) and dies at
; 20. left/right move the rain cloud (row 1), down makes it rain on the three columns under
; it. Weeds (dark green) sprout in random free columns and make neighbouring plants dry
; out twice as fast; a click pulls a weed. A click on a flower picks it (gold pips on
; row 0) and the plant starts again as a sprout.
(program
  (= GRID_SIZE 12)

  (object Plant (: tall Int) (: water Int) (: dry Int) (: bloom String)
    (map (--> k (Cell 0 (if (< k tall) then (- 0 k) else 40)
                      (if (>= dry 12) then "brown" else (if (== k 4) then bloom else "green"))))
         (range 0 5)))
  (object Weed (Cell 0 0 "darkgreen"))
  (object Rain (Cell 0 0 "blue"))
  (object Cloud (list (Cell -1 0 "white") (Cell 0 0 "white") (Cell 1 0 "white")))
  (object Soil (Cell 0 0 "brown"))
  (object Pip (Cell 0 0 "gold"))

  (= soil (map (--> i (Soil (Position i 11))) (range 0 12)))
  (= flowers (list "pink" "yellow" "purple" "red" "orange"))
  (= colOf (--> o (.. (.. o origin) x)))
  (= plantIn (--> (ps cx) (filter (--> pl (== (colOf pl) cx)) ps)))
  (= weedy (--> cx (any (--> w (<= (abs (- (colOf w) cx)) 1)) weeds)))
  (= topOf (--> cx (let (= here (plantIn plants cx))
                        (if (> (length here) 0) then (- 11 (.. (head here) tall))
                         else (if (any (--> w (== (colOf w) cx)) weeds) then 10 else 11)))))

  ; one tick of one plant; soaked = number of rain drops it caught this tick
  (= tend (--> (pl soaked)
    (let (= wet (min 12 (max 0 (- (+ (.. pl water) (* 6 soaked)) (if (weedy (colOf pl)) then 2 else 1)))))
         (= grows (& (> wet 0) (& (< (.. pl tall) 5) (== (% clock (if changed then 2 else 3)) 0))))
         (= taller (if grows then (+ (.. pl tall) 1) else (.. pl tall)))
         (Plant taller wet (if (> wet 0) then 0 else (+ (.. pl dry) 1))
                (if (& grows (== taller 5)) then (uniformChoice flowers) else (.. pl bloom))
                (.. pl origin)))))
  (= landed (--> dr (>= (+ (.. (.. dr origin) y) 1) (topOf (colOf dr)))))
  (= catches (--> (pl drs) (length (filter (--> dr (== (colOf dr) (colOf pl))) drs))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= picked (initnext 0 (prev picked)))
  (= planted (initnext 0 (prev planted)))
  (= weeds (initnext (list) (prev weeds)))
  (= plants (initnext (list (Plant 2 8 0 "green" (Position 5 10))) (prev plants)))
  (= rain (initnext (list) (prev rain)))
  (= cloud (initnext (Cloud (Position 2 1)) (prev cloud)))
  (= pips (initnext (list) (map (--> i (Pip (Position i 0))) (range 0 (min picked 12)))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on (& left (> (colOf cloud) 1)) (= cloud (moveLeft cloud)))
  (on (& right (< (colOf cloud) 10)) (= cloud (moveRight cloud)))
  (on (& down (< (length rain) 9))
    (= rain (addObj rain (map (--> i (Rain (Position (+ (colOf cloud) i) 2))) (list -1 0 1)))))
  (on clicked
    (let (= cx (.. click x))
         (= here (plantIn plants cx))
         (if (& (& (== (.. click y) 11) (& (>= cx 0) (< cx 12))) (& (== (length here) 0) (! (any (--> w (== (colOf w) cx)) weeds))))
          then (let (= plants (addObj plants (Plant 1 6 0 "green" (Position cx 10))))
                    (= planted (+ planted 1)))
          else (if (any (--> w (== (.. w origin) click)) weeds)
                then (= weeds (removeObj weeds (--> w (== (.. w origin) click))))
                else (if (& (== (.. click y) 6) (& (> (length here) 0) (& (== (.. (head here) tall) 5) (< (.. (head here) dry) 12))))
                      then (let (= plants (map (--> pl (if (== (colOf pl) cx) then (Plant 1 (.. pl water) 0 "green" (.. pl origin)) else pl)) plants))
                                (= picked (+ picked 1)))
                      else picked)))))

  (on true
    (let (= wetDrops (filter landed rain))
         (= rain (map moveDown (removeObj rain landed)))
         (= plants (removeObj (map (--> pl (tend pl (catches pl wetDrops))) plants)
                              (--> pl (>= (.. pl dry) 20))))
         (= bare (filter (--> cx (& (== (length (plantIn plants cx)) 0) (! (any (--> w (== (colOf w) cx)) weeds))))
                         (range 0 12)))
         (if (& (== (% clock 9) 4) (& (< (length weeds) 4) (> (length bare) 0)))
          then (= weeds (addObj weeds (Weed (Position (uniformChoice bare) 10))))
          else weeds))))
