; CHANGED PROGRAM (change detection): a target is charged as soon as the beam reaches it (1 tick instead of 3), once the trigger has held.
; mirrors: a 16x16 optics bench. A white laser on the left edge shines a red beam to the
; right. Mirrors turn the beam a quarter: a cyan mirror is a '/' (right -> up, down ->
; left), a pink one a '\' (right -> down, up -> left). The beam stops at gray blocks and at
; the edge. Targets let the beam pass; a target in the beam glows yellow, and one kept in
; the beam for 3 ticks in a row is charged for good (green). A click on a mirror flips it
; ('/' <-> '\'); up and down move the laser along the edge; left switches the laser off and
; right switches it on again.
(program
  (= GRID_SIZE 16)

  (object Laser (: power Bool) (Cell 0 0 (if power then "white" else "gray")))
  (object Mirror (: slash Bool) (Cell 0 0 (if slash then "cyan" else "pink")))
  (object Block (Cell 0 0 "gray"))
  (object Target (: lit Int) (: full Bool)
    (Cell 0 0 (if full then "green" else (if (> lit 0) then "yellow" else "maroon"))))
  (object Ray (Cell 0 0 "red"))

  (= blocks (map (--> q (Block q)) (list (Position 2 2) (Position 8 10) (Position 6 14)
                                        (Position 10 5) (Position 15 13) (Position 11 11))))
  ; blocks and mirrors never move: a cell is tested against their places directly
  (= blockAt (--> q (let (= x (.. q x)) (= y (.. q y))
    (| (& (== x 2) (== y 2)) (| (& (== x 8) (== y 10)) (| (& (== x 6) (== y 14))
    (| (& (== x 10) (== y 5)) (| (& (== x 15) (== y 13)) (& (== x 11) (== y 11))))))))))
  ; the index in mirrors of the mirror at a cell, or -1 (the order of mirrorSpots)
  (= mirrorIndex (--> q (let (= x (.. q x)) (= y (.. q y))
    (if (& (== x 4) (== y 8)) then 0 else (if (& (== x 4) (== y 13)) then 1
     else (if (& (== x 13) (== y 13)) then 2 else (if (& (== x 13) (== y 2)) then 3
     else (if (& (== x 9) (== y 5)) then 4 else (if (& (== x 2) (== y 11)) then 5
     else (if (& (== x 11) (== y 8)) then 6 else (if (& (== x 7) (== y 3)) then 7 else -1)))))))))))
  (= inside (--> q (& (& (>= (.. q x) 0) (< (.. q x) 16)) (& (>= (.. q y) 0) (< (.. q y) 16)))))

  ; one cell of the beam: acc = (list position heading going cells)
  (= traceStep (--> (acc i)
    (if (! (at acc 2)) then acc
     else (let (= here (at acc 0))
               (= way (at acc 1))
               (= next (Position (+ (.. here x) (.. way x)) (+ (.. here y) (.. way y))))
               (if (| (! (inside next)) (blockAt next)) then (list here way false (at acc 3))
                else (let (= found (mirrorIndex next))
                          (= turned (if (< found 0) then way
                                     else (if (.. (at mirrors found) slash)
                                           then (Position (- 0 (.. way y)) (- 0 (.. way x)))
                                           else (Position (.. way y) (.. way x)))))
                          (list next turned true (addObj (at acc 3) (Ray next)))))))))
  (= traceBeam (--> l (if (.. l power)
                       then (at (foldl traceStep (list (.. l origin) (Position 1 0) true (list)) (range 0 60)) 3)
                       else (list))))
  ; the mirrors at the start: position and whether it is a '/'
  (= mirrorSpots (list (list (Position 4 8) true) (list (Position 4 13) true)
                       (list (Position 13 13) false) (list (Position 13 2) true)
                       (list (Position 9 5) false) (list (Position 2 11) true)
                       (list (Position 11 8) false) (list (Position 7 3) true)))
  (= makeMirrors (--> k (map (--> s (Mirror (at s 1) (at s 0))) mirrorSpots)))
  (= inBeam (--> (t cells) (any (--> r (== (.. r origin) (.. t origin))) cells)))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= flips (initnext 0 (prev flips)))
  (= charged (initnext 0 (prev charged)))
  (= beam (initnext (let (= mirrors (makeMirrors 0)) (traceBeam (Laser true (Position 0 14))))
                    (prev beam)))
  (= mirrors (initnext (makeMirrors 0) (prev mirrors)))
  (= targets (initnext (list (Target 0 false (Position 9 13)) (Target 0 false (Position 13 7))
                             (Target 0 false (Position 6 2)))
                       (prev targets)))
  (= laser (initnext (Laser true (Position 0 14)) (prev laser)))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on (& up (> (.. (.. laser origin) y) 1)) (= laser (moveUp laser)))
  (on (& down (< (.. (.. laser origin) y) 14)) (= laser (moveDown laser)))
  (on left (= laser (updateObj laser "power" false)))
  (on right (= laser (updateObj laser "power" true)))
  (on (clicked mirrors)
    (let (= mirrors (map (--> m (if (== (.. m origin) click) then (updateObj m "slash" (! (.. m slash))) else m)) mirrors))
         (= flips (+ flips 1))))

  ; the beam is traced again after a click on a mirror or an arrow; then the targets count
  ; how long they have been in it
  (on (| (clicked mirrors) (| up (| down (| left right)))) (= beam (traceBeam laser)))
  (on true
    (let (= targets (map (--> t (let (= glow (if (inBeam t beam) then (+ (.. t lit) 1) else 0))
                                     (updateObj (updateObj t "lit" glow) "full" (| (.. t full) (>= glow (if changed then 1 else 3))))))
                         targets))
         (= charged (length (filter (--> t (.. t full)) targets))))))
