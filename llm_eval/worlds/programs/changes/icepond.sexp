; CHANGED PROGRAM (change detection): water freezes as soon as winter starts (no 3-tick delay), once the trigger has held.
; icepond: water poured from a tap on the top row falls and spreads sideways through a
; stone basin with a shelf and a pillar (each drop keeps its heading and turns round when
; blocked; right-heading drops step on even ticks, left-heading ones on odd ticks). up
; toggles the season (lamp at the top right: yellow summer, lightblue winter). After 3
; ticks of winter, resting water with open air above freezes (lightblue ice, a solid that
; floats on water and falls when unsupported); after 3 ticks of summer, ice with open air
; above melts. left/right move the tap, down pours a drop, a click on water freezes that
; drop and a click on ice melts it.
(program
  (= GRID_SIZE 12)

  (object Drop (: icy Bool) (: heading Int) (Cell 0 0 (if icy then "lightblue" else "blue")))
  (object Stone (Cell 0 0 "gray"))
  (object Tap (Cell 0 0 "white"))
  (object Lamp (: glow String) (Cell 0 0 glow))

  (= stoneSpots (concat (list
    (map (--> i (Position i 11)) (range 0 12))
    (map (--> i (Position 0 i)) (range 1 11))
    (map (--> i (Position 11 i)) (range 1 11))
    (map (--> i (Position i 6)) (range 1 5))
    (list (Position 7 10) (Position 7 9)))))
  (= stones (map (--> q (Stone q)) stoneSpots))

  (= at2 (--> (q sx sy) (Position (+ (.. q x) sx) (+ (.. q y) sy))))
  (= resting (--> d (! (isFreePos (at2 (.. d origin) 0 1)))))
  (= openAbove (--> d (isFreePos (at2 (.. d origin) 0 -1))))

  ; one tick of one drop: fall; else water steps sideways in its heading into a cell that
  ; nothing can fall into, or turns round when it cannot. Right-heading drops move on even
  ; ticks and left-heading ones on odd ticks, so two drops never enter one cell.
  (= flow (--> d
    (let (= here (.. d origin))
         (= ahead (at2 here (.. d heading) 0))
         (= below (at2 here 0 1))
         (if (isFreePos below) then (updateObj d "origin" below)
          else (if (| (.. d icy) (!= (== (.. d heading) 1) (== (% clock 2) 0))) then d
          else (if (& (isFreePos ahead) (isFreePos (at2 ahead 0 -1)))
                then (updateObj d "origin" ahead)
                else (updateObj d "heading" (- (.. d heading)))))))))
  (= weather (--> d
    (if (& (! (.. d icy)) (& (| (>= chill 3) (& changed winter)) (& (resting d) (openAbove d)))) then (updateObj d "icy" true)
     else (if (& (.. d icy) (& (>= warmth 3) (openAbove d))) then (updateObj d "icy" false)
     else d))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= winter (initnext false (prev winter)))
  (= chill (initnext 0 (if (prev winter) then (+ (prev chill) 1) else 0)))
  (= warmth (initnext 3 (if (prev winter) then 0 else (+ (prev warmth) 1))))
  (= poured (initnext 0 (prev poured)))
  (= drops (initnext (map (--> i (Drop false 1 (Position i 10))) (range 1 7)) (prev drops)))
  (= tap (initnext (Tap (Position 2 0)) (prev tap)))
  (= lamp (initnext (Lamp "yellow" (Position 11 0))
    (Lamp (if winter then "lightblue" else "yellow") (Position 11 0))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on true (= drops (map (--> d (flow (weather d))) drops)))
  (on (& left (> (.. (.. tap origin) x) 1)) (= tap (moveLeft tap)))
  (on (& right (< (.. (.. tap origin) x) 10)) (= tap (moveRight tap)))
  (on up (= winter (! winter)))
  (on (& down (& (< (length drops) 40) (isFreePos (at2 (.. tap origin) 0 1))))
    (let (= drops (addObj drops (Drop false (if (< (.. (.. tap origin) x) 6) then 1 else -1) (at2 (.. tap origin) 0 1))))
         (= poured (+ poured 1))))
  (on (clicked drops)
    (= drops (map (--> d (if (== (.. d origin) click) then (updateObj d "icy" (! (.. d icy))) else d)) drops))))
