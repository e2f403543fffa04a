; CHANGED PROGRAM (change detection): whatever enters a portal comes out of the partner backwards (on the near side, heading the other way), once the trigger has held.
; teleport: a 16x16 house of three sealed rooms (gray walls) joined only by paired portals.
; Arrows walk the white player. Stepping into a portal (orange, cyan and magenta pairs)
; carries whatever enters it to the other portal of its pair: it comes out of the partner
; on the far side, still going the same way (if that cell is blocked, nothing moves). The
; player pushes the brown crate one cell by walking into it, and a crate pushed into a
; portal comes out of the partner too. While the crate stands on the dark green pad in the
; right room, the lamp in the top wall above it glows green. A yellow drone shuttles left and right on its own, turning
; round at anything in its way, and it goes through portals like everything else. A click
; on a portal shuts its pair (dark gray, plain floor) or opens it again.
(program
  (= GRID_SIZE 16)

  (object Player (Cell 0 0 "white"))
  (object Crate (: home Bool) (Cell 0 0 "brown"))
  (object Lamp (: lit Bool) (Cell 0 0 (if lit then "green" else "darkgray")))
  (object Drone (: dx Int) (Cell 0 0 "yellow"))
  (object Gate (: tint String) (: shut Bool) (: twin Position) (Cell 0 0 (if shut then "darkgray" else tint)))
  (object Wall (Cell 0 0 "gray"))
  (object Pad (Cell 0 0 "darkgreen"))

  (= wallSpots (concat (list
    (map (--> i (Position i 0)) (range 0 16)) (map (--> i (Position i 15)) (range 0 16))
    (map (--> i (Position 0 i)) (range 1 15)) (map (--> i (Position 15 i)) (range 1 15))
    (map (--> i (Position 5 i)) (range 1 15)) (map (--> i (Position 10 i)) (range 1 15))
    (list (Position 2 8) (Position 3 8) (Position 6 5) (Position 7 5)))))
  (= LAMP (Position 13 0))
  (= walls (map (--> q (Wall q)) (filter (--> q (!= q LAMP)) wallSpots)))
  (= PAD (Position 13 4))

  (= step (--> (q d) (Position (+ (.. q x) (.. d x)) (+ (.. q y) (.. d y)))))
  (= gateAt (--> q (filter (--> g (& (! (.. g shut)) (== (.. g origin) q))) gates)))
  ; where something at q moving by d ends up: the next cell, or out of the partner portal
  (= dest (--> (q d)
    (let (= nq (step q d))
         (= gs (gateAt nq))
         (if (== (length gs) 0) then nq
          else (if changed then (step (.. (head gs) twin) (Position (- 0 (.. d x)) (- 0 (.. d y))))
          else (step (.. (head gs) twin) d))))))
  (= dirs (list (Position -1 0) (Position 1 0) (Position 0 -1) (Position 0 1)))
  ; the cell behind the partner of the portal next to q in direction d (as seen going in)
  (= back (--> (q d) (step (.. (head (gateAt (step q d))) twin) (Position (- 0 (.. d x)) (- 0 (.. d y))))))
  (= jumping (--> (q d) (> (length (gateAt (step q d))) 0)))
  (= crateAt (--> q (any (--> c (== (.. c origin) q)) crates)))
  (= solid (--> q (| (in q wallSpots) (crateAt q))))

  (= walk (--> d
    (let (= aim (dest (.. player origin) d))
         (if (| (in aim wallSpots) (== aim (.. drone origin))) then player
          else (if (crateAt aim)
                then (let (= beyond (dest aim d))
                          (if (| (solid beyond) (== beyond (.. drone origin))) then player
                           else (let (= crateJumps (if (jumping aim d) then (+ crateJumps 1) else crateJumps))
                                     (= crates (map (--> c (if (== (.. c origin) aim)
                                                           then (updateObj (updateObj c "origin" beyond) "home" (== beyond PAD))
                                                           else c)) crates))
                                     (= jumps (if (jumping (.. player origin) d) then (+ jumps 1) else jumps))
                                     (= player (updateObj player "origin" aim)))))
                else (let (= jumps (if (jumping (.. player origin) d) then (+ jumps 1) else jumps))
                          (= player (updateObj player "origin" aim))))))))

  (= pad (initnext (Pad PAD) (prev pad)))
  (= lamp (initnext (Lamp false LAMP) (Lamp (any (--> c (.. c home)) crates) LAMP)))
  (= jumps (initnext 0 (prev jumps)))
  (= crateJumps (initnext 0 (prev crateJumps)))
  (= toggles (initnext 0 (prev toggles)))
  (= gates (initnext (list
      (Gate "orange" false (Position 7 11) (Position 3 4)) (Gate "orange" false (Position 3 4) (Position 7 11))
      (Gate "cyan" false (Position 12 11) (Position 8 3)) (Gate "cyan" false (Position 8 3) (Position 12 11))
      (Gate "magenta" false (Position 13 13) (Position 2 12)) (Gate "magenta" false (Position 2 12) (Position 13 13)))
    (prev gates)))
  (= crates (initnext (list (Crate false (Position 3 6))) (prev crates)))
  (= drone (initnext (Drone 1 (Position 11 13)) (prev drone)))
  (= player (initnext (Player (Position 1 13)) (prev player)))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on left (walk (Position -1 0)))
  (on right (walk (Position 1 0)))
  (on up (walk (Position 0 -1)))
  (on down (walk (Position 0 1)))
  (on (& clicked (> (length (filter (--> g (== (.. g origin) click)) gates)) 0))
    (let (= hue (.. (head (filter (--> g (== (.. g origin) click)) gates)) tint))
         (= gates (map (--> g (if (== (.. g tint) hue) then (updateObj g "shut" (! (.. g shut))) else g)) gates))
         (= toggles (+ toggles 1))))
  ; the drone moves after the player: one cell left or right (through portals), or turns round
  (on true
    (let (= heading (Position (.. drone dx) 0))
         (= ahead (dest (.. drone origin) heading))
         (= drone (if (| (solid ahead) (== ahead (.. player origin)))
                   then (updateObj drone "dx" (- 0 (.. drone dx)))
                   else (updateObj drone "origin" ahead))))))
