; CHANGED PROGRAM (change detection): northbound cars (yellow) no longer stop at a red light, once the trigger has held.
; traffic: a 16x16 crossroads. Two roads (dark gray) cross in the middle: eastbound cars
; (blue) on row 8, westbound (lightblue) on row 7, southbound (orange) in column 7 and
; northbound (yellow) in column 8. Cars appear at random at the lanes' entrances and drive
; one cell a tick; a car waits behind the car ahead and at its stop line while its light is
; red. One light serves the east-west lanes (the lamps at (6,9) and (9,6)), one the
; north-south lanes (lamps at (6,6) and (9,9)). Left or right turns the east-west light
; green and the other red, up or down the reverse; a click on a lamp toggles that light
; alone. Two cars driving into the same cell crash into a gray wreck that blocks the lane
; until it is towed (clicked) or cleared after 12 ticks. A car leaving the grid scores a
; gold mark (row 0, from the left, at most 7 shown); crashes put red marks on row 0 from
; the right.
(program
  (= GRID_SIZE 16)
  (= background "darkgreen")

  (object Car (: lane Int)
    (Cell 0 0 (if (== lane 0) then "blue" else (if (== lane 1) then "lightblue"
               else (if (== lane 2) then "orange" else "yellow")))))
  (object Wreck (: age Int) (Cell 0 0 "gray"))
  (object Lamp (: lit Bool) (: dx Int) (: dy Int)
    (list (Cell 0 0 (if lit then "green" else "red")) (Cell dx dy (if lit then "green" else "red"))))
  (object Tile (: look String) (Cell 0 0 look))

  (= laneDir (list (Position 1 0) (Position -1 0) (Position 0 1) (Position 0 -1)))
  (= laneStart (list (Position 0 8) (Position 15 7) (Position 7 0) (Position 8 15)))
  (= laneStop (list (Position 6 8) (Position 9 7) (Position 7 6) (Position 8 9)))
  (= onGrid (--> p (& (>= (.. p x) 0) (& (< (.. p x) 16) (& (>= (.. p y) 0) (< (.. p y) 16))))))
  (= ahead (--> c (Position (+ (.. (.. c origin) x) (.. (at laneDir (.. c lane)) x))
                            (+ (.. (.. c origin) y) (.. (at laneDir (.. c lane)) y)))))
  (= greenFor (--> ln (if (< ln 2) then hGreen else vGreen)))
  (= taken (--> p (| (any (--> k (== (.. k origin) p)) cars) (any (--> w (== (.. w origin) p)) wrecks))))
  ; a car waits at its stop line on red, or behind a car or wreck (where they stood last tick)
  (= waits (--> c (| (& (== (.. c origin) (at laneStop (.. c lane)))
                        (& (! (greenFor (.. c lane))) (! (& changed (== (.. c lane) 3)))))
                     (taken (ahead c)))))
  (= drive (--> c (if (waits c) then c else (updateObj c "origin" (ahead c)))))
  (= sharing (--> (c cs) (> (length (filter (--> k (== (.. k origin) (.. c origin))) cs)) 1)))

  (= roads (initnext (concat (list
      (map (--> i (Tile "darkgray" (Position i 7))) (range 0 16))
      (map (--> i (Tile "darkgray" (Position i 8))) (range 0 16))
      (map (--> i (Tile "darkgray" (Position 7 i))) (range 0 7))
      (map (--> i (Tile "darkgray" (Position 8 i))) (range 0 7))
      (map (--> i (Tile "darkgray" (Position 7 i))) (range 9 16))
      (map (--> i (Tile "darkgray" (Position 8 i))) (range 9 16))))
    (prev roads)))
  (= hGreen (initnext true (prev hGreen)))
  (= vGreen (initnext false (prev vGreen)))
  (= switches (initnext 0 (prev switches)))
  (= passed (initnext 0 (prev passed)))
  (= crashes (initnext 0 (prev crashes)))
  (= towed (initnext 0 (prev towed)))
  (= clock (initnext 0 (+ (prev clock) 1)))
  (= hLamp (initnext (Lamp true 3 -3 (Position 6 9)) (updateObj (prev hLamp) "lit" hGreen)))
  (= vLamp (initnext (Lamp false 3 3 (Position 6 6)) (updateObj (prev vLamp) "lit" vGreen)))
  (= passedBar (initnext (list) (map (--> i (Tile "gold" (Position i 0))) (range 0 (min passed 7)))))
  (= crashBar (initnext (list) (map (--> i (Tile "red" (Position (- 15 i) 0))) (range 0 (min crashes 7)))))
  (= wrecks (initnext (list) (prev wrecks)))
  (= cars (initnext (list (Car 0 (Position 3 8)) (Car 2 (Position 7 4)) (Car 3 (Position 8 12)))
           (prev cars)))

  ; arrows set the junction: left/right east-west green, up/down north-south green
  (= setLights (--> h
    (if (!= hGreen h)
     then (let (= hGreen h) (= vGreen (! h)) (= switches (+ switches 1)))
     else (if (== vGreen h) then (let (= vGreen (! h)) (= switches (+ switches 1))) else h))))
  (on (| left right) (setLights true))
  (on (| up down) (setLights false))

  ; a click on a lamp toggles its light; a click on a wreck tows it away
  (on (clicked hLamp) (let (= hGreen (! hGreen)) (= switches (+ switches 1))))
  (on (clicked vLamp) (let (= vGreen (! vGreen)) (= switches (+ switches 1))))
  (on (clicked wrecks)
    (let (= wrecks (removeObj wrecks (--> w (== (.. w origin) click))))
         (= towed (+ towed 1))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  ; every tick: cars drive, those leaving the grid score, those meeting in a cell crash,
  ; wrecks age, and a car may appear at a random lane's entrance
  (on true
    (let (= moved (map drive cars))
         (= passed (+ passed (length (filter (--> c (! (onGrid (.. c origin)))) moved))))
         (= moved (filter (--> c (onGrid (.. c origin))) moved))
         (= smashed (filter (--> c (sharing c moved)) moved))
         (= spots (foldl (--> (acc c) (if (in (.. c origin) acc) then acc else (addObj acc (list (.. c origin)))))
                         (list) smashed))
         (= crashes (+ crashes (length spots)))
         (= wrecks (addObj (filter (--> w (< (.. w age) 12)) (map (--> w (updateObj w "age" (+ (.. w age) 1))) wrecks))
                           (map (--> p (Wreck 0 p)) spots)))
         (= moved (removeObj moved (--> c (sharing c moved))))
         (= pick (uniformChoice (range 0 10)))
         (= cars (if (& (< pick 4) (& (< (length moved) 20)
                     (! (any (--> k (== (.. k origin) (at laneStart pick))) (concat (list moved wrecks))))))
                  then (addObj moved (Car pick (at laneStart pick)))
                  else moved)))))
