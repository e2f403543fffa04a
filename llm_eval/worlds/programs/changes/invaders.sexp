; CHANGED PROGRAM (change detection): bombs fall two cells per tick, once the trigger has held.
; invaders: a white ship on the bottom rows (left/right) fires yellow shots upward (up,
; at most 2 in flight) at a formation of 15 enemies that marches sideways every few
; ticks and steps down at the edges. Every 3 ticks a random enemy drops an orange-red
; bomb. A shot destroys an enemy (gold score pips, row 0 left) or a bomb; a bomb on the
; ship costs a life (white pips, row 0 right). down raises a cyan shield over the ship
; for 4 ticks; it then needs 12 ticks to recharge (the ship is gray meanwhile). A cleared
; formation comes back one row lower and faster; losing all lives restarts the wave.
(program
  (= GRID_SIZE 13)

  (object Ship (: ready Bool)
    (list (Cell 0 -1 (if ready then "white" else "gray")) (Cell -1 0 (if ready then "white" else "gray"))
          (Cell 0 0 (if ready then "white" else "gray")) (Cell 1 0 (if ready then "white" else "gray"))))
  (object Enemy (: rank Int) (Cell 0 0 (if (== rank 0) then "magenta" else (if (== rank 1) then "orange" else "green"))))
  (object Shot (Cell 0 0 "yellow"))
  (object Bomb (Cell 0 0 "orangered"))
  (object Shield (list (Cell -1 0 "cyan") (Cell 0 0 "cyan") (Cell 1 0 "cyan")))
  (object Pip (: tone String) (Cell 0 0 tone))

  (= formation (--> top
    (concat (map (--> r (map (--> c (Enemy r (Position (+ 1 (* 2 c)) (+ top r)))) (range 0 5))) (range 0 3)))))
  (= shipX (--> () (.. (.. ship origin) x)))
  (= hull (--> () (list (Position ((shipX)) 11) (Position (- ((shipX)) 1) 12) (Position ((shipX)) 12) (Position (+ ((shipX)) 1) 12))))
  (= shieldSpots (--> () (if (> guard 0) then (list (Position (- ((shipX)) 1) 10) (Position ((shipX)) 10) (Position (+ ((shipX)) 1) 10)) else (list))))
  (= spotsOf (--> os (map (--> o (.. o origin)) os)))
  (= pace (--> () (max 1 (- 4 wave))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= score (initnext 0 (prev score)))
  (= lives (initnext 3 (prev lives)))
  (= wave (initnext 0 (prev wave)))
  (= march (initnext 1 (prev march)))
  (= guard (initnext 0 (prev guard)))
  (= recharge (initnext 0 (prev recharge)))
  (= enemies (initnext (formation 2) (prev enemies)))
  (= shots (initnext (list) (prev shots)))
  (= bombs (initnext (list) (prev bombs)))
  (= ship (initnext (Ship true (Position 6 12)) (prev ship)))
  (= shield (initnext (list) (if (> guard 0) then (list (Shield (Position (.. (.. ship origin) x) 10))) else (list))))
  (= pips (initnext (map (--> i (Pip "white" (Position (- 12 i) 0))) (range 0 3))
    (concat (list (map (--> i (Pip "gold" (Position i 0))) (range 0 (min score 9)))
                  (map (--> i (Pip "white" (Position (- 12 i) 0))) (range 0 lives))))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on (& left (> ((shipX)) 1)) (= ship (moveLeft ship)))
  (on (& right (< ((shipX)) 11)) (= ship (moveRight ship)))
  (on (& up (< (length shots) 2)) (= shots (addObj shots (Shot (Position ((shipX)) 10)))))
  (on (& down (& (== guard 0) (== recharge 0)))
    (let (= guard 5) (= recharge 16)))

  (on true
    (let
      ; the formation marches every pace ticks
      (= edge (any (--> e (| (< (+ (.. (.. e origin) x) march) 0) (> (+ (.. (.. e origin) x) march) 12))) enemies))
      (= stepNow (== (% clock ((pace))) 0))
      (= enemies (if (! stepNow) then enemies
                  else (if edge then (map moveDown enemies)
                  else (map (--> e (move e (Position march 0))) enemies))))
      (= march (if (& stepNow edge) then (- march) else march))
      ; shots rise, bombs fall; a shot meets what is in its cell before or after the move
      (= oldShots (spotsOf shots))
      (= shots (filter (--> s (> (.. (.. s origin) y) 0)) (map moveUp shots)))
      (= oldBombs (spotsOf bombs))
      (= bombs (filter (--> b (< (.. (.. b origin) y) 13)) (map (--> b (if changed then (moveDown (moveDown b)) else (moveDown b))) bombs)))
      (= hitE (filter (--> e (| (in (.. e origin) (spotsOf shots)) (in (.. e origin) oldShots))) enemies))
      (= score (+ score (length hitE)))
      (= enemies (removeObj enemies (--> e (in e hitE))))
      (= shots (removeObj shots (--> s (| (in (.. s origin) (spotsOf hitE)) (in (moveDownPos (.. s origin)) (spotsOf hitE))))))
      (= clash (--> s (| (in (.. s origin) (spotsOf bombs)) (in (.. s origin) oldBombs))))
      (= hitB (spotsOf (filter clash shots)))
      (= shots (removeObj shots clash))
      (= bombs (removeObj bombs (--> b (| (in (.. b origin) hitB) (in (moveUpPos (.. b origin)) hitB)))))
      (= bombs (removeObj bombs (--> b (in (.. b origin) ((shieldSpots))))))
      (= struck (filter (--> b (in (.. b origin) ((hull)))) bombs))
      (= bombs (removeObj bombs (--> b (in (.. b origin) ((hull))))))
      (= lives (- lives (length struck)))
      ; a random enemy drops a bomb every 3 ticks
      (= bombs (if (& (== (% clock 3) 0) (> (length enemies) 0))
                then (addObj bombs (Bomb (moveDownPos (.. (uniformChoice enemies) origin)))) else bombs))
      (= guard (max 0 (- guard 1)))
      (= recharge (max 0 (- recharge 1)))
      (= ship (updateObj ship "ready" (== recharge 0)))
      ; a cleared formation returns lower and faster; a lost game restarts the wave
      (if (== (length enemies) 0)
       then (let (= wave (+ wave 1)) (= enemies (formation (min 5 (+ 2 wave)))) (= march 1))
       else (if (| (<= lives 0) (any (--> e (>= (.. (.. e origin) y) 10)) enemies))
             then (let (= lives 3) (= enemies (formation 2)) (= bombs (list)) (= march 1))
             else lives)))))
