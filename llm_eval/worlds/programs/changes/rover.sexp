; CHANGED PROGRAM (change detection): in drive mode left and right turn the rover the opposite way (left turns it clockwise, right anticlockwise), once the trigger has held.
; rover: a 16x16 walled crater. The rover is a white body with an orange nose on the side it
; faces. In drive mode (lamp at the top right green) up drives one cell forward, down one cell
; backward, and left/right turn it a quarter to the left/right on the spot. A click on the
; rover (or on the lamp) switches to strafe mode (lamp sky blue), where the arrows move it one
; cell in screen directions without turning; another such click switches back. Gray rock
; blocks the body (the nose may poke over rock). Driving the body onto a purple sample picks
; it up (the body turns purple); bringing it onto the green base pad delivers it (a purple
; pip on row 0).
(program
  (= GRID_SIZE 16)

  (object Rover (: facing Int) (: loaded Bool)
    (list (Cell (at noseX facing) (at noseY facing) "orange")
          (Cell 0 0 (if loaded then "purple" else "white"))))
  (object Rock (map (--> q (Cell (.. q x) (.. q y) "gray")) rockSpots))
  (object Sample (Cell 0 0 "purple"))
  (object Pad (Cell 0 0 "green"))
  (object Lamp (: strafing Bool) (Cell 0 0 (if strafing then "skyblue" else "green")))
  (object Pip (Cell 0 0 "purple"))

  (= noseX (list 0 1 0 -1))
  (= noseY (list -1 0 1 0))
  (= rockSpots (concat (list
    (map (--> i (Position i 1)) (range 0 16))
    (map (--> i (Position i 15)) (range 0 16))
    (map (--> i (Position 0 i)) (range 2 15))
    (map (--> i (Position 15 i)) (range 2 15))
    (map (--> i (Position 5 i)) (range 2 9))
    (map (--> i (Position i 10)) (range 8 15))
    (list (Position 10 5) (Position 11 5) (Position 11 6) (Position 3 11) (Position 3 12)))))
  (= padSpots (list (Position 1 13) (Position 2 13) (Position 1 14) (Position 2 14)))

  (= shifted (--> (q dx dy) (Position (+ (.. q x) dx) (+ (.. q y) dy))))
  ; move the rover's body by (dx, dy) unless rock is there; pick up or deliver a sample
  (= drive (--> (dx dy)
    (let (= dest (shifted (.. rover origin) dx dy))
         (if (in dest rockSpots) then bumps
          else (let (= rover (updateObj rover "origin" dest))
                    (= travelled (+ travelled 1))
                    (if (& (! (.. rover loaded)) (any (--> sm (== (.. sm origin) dest)) samples))
                     then (let (= samples (removeObj samples (--> sm (== (.. sm origin) dest))))
                               (= rover (updateObj rover "loaded" true)))
                     else (if (& (.. rover loaded) (in dest padSpots))
                           then (let (= rover (updateObj rover "loaded" false))
                                     (= delivered (+ delivered 1)))
                           else delivered)))))))
  (= turn (--> d
    (let (= spin d)
         (= rover (updateObj rover "facing" (% (+ (.. rover facing) (+ (if changed then (- 0 d) else d) 4)) 4))))))

  (= travelled (initnext 0 (prev travelled)))
  (= bumps (initnext 0 (prev bumps)))
  (= delivered (initnext 0 (prev delivered)))
  (= switches (initnext 0 (prev switches)))
  (= spin (initnext 0 0))
  (= strafe (initnext false (prev strafe)))
  (= rock (initnext (Rock (Position 0 0)) (prev rock)))
  (= pad (initnext (map (--> q (Pad q)) padSpots) (prev pad)))
  (= samples (initnext (map (--> q (Sample q))
                            (list (Position 12 3) (Position 3 4) (Position 10 8) (Position 13 13)))
                       (prev samples)))
  (= rover (initnext (Rover 0 false (Position 7 13)) (prev rover)))
  (= lamp (initnext (Lamp false (Position 15 0)) (Lamp strafe (Position 15 0))))
  (= pips (initnext (list) (map (--> i (Pip (Position i 0))) (range 0 (min delivered 14)))))

  (on (& up (! strafe))
    (drive (at noseX (.. rover facing)) (at noseY (.. rover facing))))
  (on (& down (! strafe))
    (drive (- 0 (at noseX (.. rover facing))) (- 0 (at noseY (.. rover facing)))))
  (on (& left (! strafe)) (turn -1))
  (on (& right (! strafe)) (turn 1))
  (on (& up strafe) (drive 0 -1))
  (on (& down strafe) (drive 0 1))
  (on (& left strafe) (drive -1 0))
  (on (& right strafe) (drive 1 0))
  (on (| (clicked rover) (clicked lamp))
    (let (= strafe (! strafe))
         (= switches (+ switches 1))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true)))
