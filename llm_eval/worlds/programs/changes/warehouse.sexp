; CHANGED PROGRAM (change detection): crates stop as soon as they are pushed onto the ice (no sliding), once the trigger has held.
; warehouse: a 7x7 pushing puzzle. Arrows walk the white pusher; walking into a crate
; pushes it if the cell beyond is floor. Crates turn green on the dark-green goal pads.
; A crate pushed onto the light-blue ice keeps sliding one cell per tick until something
; blocks it or it leaves the ice. A click on the pusher resets the level.
(program
  (= GRID_SIZE 7)

  (object Pusher (Cell 0 0 "white"))
  (object Crate (: vx Int) (: vy Int) (: home Bool) (Cell 0 0 (if home then "green" else "brown")))
  (object Tile (: look String) (Cell 0 0 look))

  (= wallSpots (concat (list
    (map (--> i (Position i 0)) (range 0 7)) (map (--> i (Position i 6)) (range 0 7))
    (map (--> i (Position 0 i)) (range 1 6)) (map (--> i (Position 6 i)) (range 1 6))
    (list (Position 3 3)))))
  (= iceSpots (list (Position 4 1) (Position 4 2) (Position 4 3) (Position 4 4)))
  (= goalSpots (list (Position 5 4) (Position 1 5)))
  (= startCrates (--> () (list (Crate 0 0 false (Position 2 2)) (Crate 0 0 false (Position 2 4)))))

  (= floorTiles (initnext (concat (list
      (map (--> q (Tile "gray" q)) wallSpots)
      (map (--> q (Tile "lightblue" q)) iceSpots)
      (map (--> q (Tile "darkgreen" q)) goalSpots)))
    (prev floorTiles)))
  (= pushes (initnext 0 (prev pushes)))
  (= resets (initnext 0 (prev resets)))
  (= placed (initnext 0 (prev placed)))
  (= crates (initnext ((startCrates)) (prev crates)))
  (= pusher (initnext (Pusher (Position 1 1)) (prev pusher)))

  (= shiftPos (--> (q sx sy) (Position (+ (.. q x) sx) (+ (.. q y) sy))))
  (= crateAt (--> (cs q) (any (--> c (== (.. c origin) q)) cs)))
  (= blocked (--> (cs q) (| (in q wallSpots) (crateAt cs q))))

  ; a moving crate on ice slides one more cell, or stops
  (= glide (--> (done c)
    (let (= ahead (shiftPos (.. c origin) (.. c vx) (.. c vy)))
         (= others (concat (list done (removeObj crates (--> k (== (.. k origin) (.. c origin)))))))
         (if (& (& (! changed) (| (!= (.. c vx) 0) (!= (.. c vy) 0)))
                (& (in (.. c origin) iceSpots)
                   (& (! (blocked others ahead)) (!= ahead (.. pusher origin)))))
          then (addObj done (updateObj c "origin" ahead))
          else (addObj done (updateObj (updateObj c "vx" 0) "vy" 0))))))
  (= settleHome (--> cs (map (--> c (updateObj c "home" (in (.. c origin) goalSpots))) cs)))

  (= walk (--> (sx sy)
    (let (= aim (shiftPos (.. pusher origin) sx sy))
         (= beyond (shiftPos aim sx sy))
         (if (in aim wallSpots) then pusher
          else (if (crateAt crates aim)
                then (if (blocked crates beyond) then pusher
                      else (let (= crates (settleHome (updateObj crates
                                   (--> c (Crate (if (in beyond iceSpots) then sx else 0)
                                                 (if (in beyond iceSpots) then sy else 0) false beyond))
                                   (--> c (== (.. c origin) aim)))))
                                (= pushes (+ pushes 1))
                                (= pusher (updateObj pusher "origin" aim))))
                else (= pusher (updateObj pusher "origin" aim)))))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on true (= crates (settleHome (foldl glide (list) crates))))
  (on left (walk -1 0))
  (on right (walk 1 0))
  (on up (walk 0 -1))
  (on down (walk 0 1))
  (on (clicked pusher)
    (let (= crates ((startCrates)))
         (= pusher (Pusher (Position 1 1)))
         (= resets (+ resets 1))))
  (on true (= placed (length (filter (--> c (.. c home)) crates)))))
