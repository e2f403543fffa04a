; CHANGED PROGRAM (change detection): iron is repelled by the magnet instead of attracted, once the trigger has held.
; magnets: a walled 12x12 room with a movable magnet (pink = north, lightblue = south),
; red (north) and blue (south) pucks and silver iron. Every tick each puck in the magnet's
; row or column within 4 cells slides one cell: unlike poles and iron towards the magnet,
; like poles away. Arrows move the magnet, which pushes a puck in its way; a click on the magnet flips its polarity.
(program
  (= GRID_SIZE 12)

  (object Magnet (: north Bool) (Cell 0 0 (if north then "pink" else "lightblue")))
  (object Puck (: pole Int) (Cell 0 0 (if (== pole 1) then "red" else (if (== pole 2) then "blue" else "silver"))))
  (object Wall (Cell 0 0 "gray"))

  (= walls (concat (list
    (map (--> i (Wall (Position i 0))) (range 0 12))
    (map (--> i (Wall (Position i 11))) (range 0 12))
    (map (--> i (Wall (Position 0 i))) (range 1 11))
    (map (--> i (Wall (Position 11 i))) (range 1 11))
    (list (Wall (Position 6 3)) (Wall (Position 6 4)) (Wall (Position 3 7)) (Wall (Position 4 7))))))

  ; pole 1 = north (red), 2 = south (blue), 0 = iron (silver)
  (= attracted (--> pk (if (== (.. pk pole) 0) then (! changed) else (!= (== (.. pk pole) 1) (.. magnet north)))))

  ; the step a puck wants this tick: (0,0) when it is out of reach
  (= pull (--> pk
    (let (= gapX (- (.. (.. pk origin) x) (.. (.. magnet origin) x)))
         (= gapY (- (.. (.. pk origin) y) (.. (.. magnet origin) y)))
         (= reach (+ (abs gapX) (abs gapY)))
         (if (| (& (!= gapX 0) (!= gapY 0)) (> reach 4)) then (Position 0 0)
          else (if (attracted pk) then (Position (- (sign gapX)) (- (sign gapY)))
                else (Position (sign gapX) (sign gapY)))))))

  ; pucks move in list order; a puck only enters a cell that was free in the last frame
  ; and that no puck (nor the magnet) has taken this tick
  (= slide (--> (done pk)
    (let (= goal (movePos (.. pk origin) (pull pk)))
         (= taken (map (--> q (.. q origin)) (concat (list done pucks))))
         (if (& (isFreePos goal) (& (! (in goal taken)) (!= goal (.. magnet origin))))
          then (addObj done (updateObj pk "origin" goal))
          else (addObj done pk)))))

  (= flips (initnext 0 (prev flips)))
  (= magnet (initnext (Magnet true (Position 5 5)) (prev magnet)))
  (= pucks (initnext (list (Puck 1 (Position 3 3)) (Puck 1 (Position 8 8)) (Puck 2 (Position 8 2))
                           (Puck 2 (Position 2 9)) (Puck 0 (Position 9 9)) (Puck 0 (Position 2 2)))
                     (prev pucks)))

  ; the magnet moves into a free cell, or pushes a puck whose cell beyond is free
  (= shove (--> (sx sy)
    (let (= aim (Position (+ (.. (.. magnet origin) x) sx) (+ (.. (.. magnet origin) y) sy)))
         (= beyond (Position (+ (.. aim x) sx) (+ (.. aim y) sy)))
         (if (isFreePos aim) then (= magnet (updateObj magnet "origin" aim))
          else (if (& (any (--> q (== (.. q origin) aim)) pucks) (isFreePos beyond))
                then (let (= pucks (updateObj pucks (--> q (updateObj q "origin" beyond))
                                                    (--> q (== (.. q origin) aim))))
                          (= magnet (updateObj magnet "origin" aim)))
                else magnet)))))
  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on left (shove -1 0))
  (on right (shove 1 0))
  (on up (shove 0 -1))
  (on down (shove 0 1))
  (on (clicked magnet)
    (let (= magnet (updateObj magnet "north" (! (.. magnet north))))
         (= flips (+ flips 1))))
  (on true (= pucks (foldl slide (list) pucks))))
