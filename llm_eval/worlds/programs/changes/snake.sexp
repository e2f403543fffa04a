; CHANGED PROGRAM (change detection): each food makes the snake grow by two segments instead of one, once the trigger has held.
; snake: a 16x16 snake game. The snake (yellow head, green body) moves one cell every tick
; in its heading; arrows turn it (a turn straight back is ignored). It wraps round the
; edges of the field (rows 1..15; row 0 shows one gold pip per food eaten). Eating the red
; food makes the snake one segment longer, and a new food appears on a random free cell.
; Running into its own body bites off the tail from that segment on. A click on an empty
; field cell drops a gray rock (at most 6; a seventh replaces the oldest), a click on a
; rock removes it; a snake heading into a rock turns clockwise, or waits if that is
; blocked too.
(program
  (= GRID_SIZE 16)

  (object Seg (: lead Bool) (Cell 0 0 (if lead then "yellow" else "green")))
  (object Food (Cell 0 0 "red"))
  (object Rock (Cell 0 0 "gray"))
  (object Pip (Cell 0 0 "gold"))

  (= field (concat (map (--> x (map (--> y (Position x y)) (range 1 16))) (range 0 16))))
  (= wrapPos (--> q (Position (% (+ (.. q x) 16) 16)
                              (if (< (.. q y) 1) then 15 else (if (> (.. q y) 15) then 1 else (.. q y))))))
  (= ahead (--> (q d) (wrapPos (Position (+ (.. q x) (.. d x)) (+ (.. q y) (.. d y))))))
  (= clockwise (--> d (Position (- 0 (.. d y)) (.. d x))))
  (= rockAt (--> q (any (--> r (== (.. r origin) q)) rocks)))
  (= indexAt (--> (q segs) (foldl (--> (acc i) (if (& (< acc 0) (== (.. (at segs i) origin) q))
                                                    then i else acc))
                                  -1 (range 0 (length segs)))))
  (= freeCells (--> segs (filter (--> q (& (! (any (--> s (== (.. s origin) q)) segs)) (! (rockAt q)))) field)))
  (= turnTo (--> d (if (& (== (+ (.. d x) (.. heading x)) 0) (== (+ (.. d y) (.. heading y)) 0))
                    then heading else d)))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= score (initnext 0 (prev score)))
  (= bites (initnext 0 (prev bites)))
  (= grow (initnext 0 (prev grow)))
  (= heading (initnext (Position 1 0) (prev heading)))
  (= rocks (initnext (list) (prev rocks)))
  (= snake (initnext (list (Seg true (Position 4 8)) (Seg false (Position 3 8)) (Seg false (Position 2 8)))
                     (prev snake)))
  (= food (initnext (Food (uniformChoice (filter (--> q (!= (.. q y) 8)) field))) (prev food)))
  (= pips (initnext (list) (map (--> i (Pip (Position i 0))) (range 0 (min score 16)))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on left (= heading (turnTo (Position -1 0))))
  (on right (= heading (turnTo (Position 1 0))))
  (on up (= heading (turnTo (Position 0 -1))))
  (on down (= heading (turnTo (Position 0 1))))

  ; a click on a rock removes it; on an empty field cell it drops a rock
  (on clicked
    (if (rockAt click) then (= rocks (removeObj rocks (--> r (== (.. r origin) click))))
     else (if (& (& (>= (.. click x) 0) (< (.. click x) 16)) (& (>= (.. click y) 1) (< (.. click y) 16)))
           then (if (| (== (.. food origin) click) (any (--> s (== (.. s origin) click)) snake)) then rocks
                 else (= rocks (addObj (if (>= (length rocks) 6) then (removeObj rocks (head rocks)) else rocks)
                                       (Rock click))))
           else rocks)))

  ; the snake moves: turn clockwise before a rock (wait if blocked again), bite itself, eat
  (on true
    (let (= front (.. (head snake) origin))
         (= heading (if (rockAt (ahead front heading)) then (clockwise heading) else heading))
         (= target (ahead front heading))
         (if (rockAt target) then snake
          else (let (= bitten (indexAt target snake))
                    (= kept (if (> bitten 0) then (range 0 bitten) else (range 0 (length snake))))
                    (= eats (== target (.. food origin)))
                    (= grow (if eats then (+ grow (if changed then 2 else 1)) else grow))
                    (= kept (if (| (> grow 0) (> bitten 0)) then kept else (range 0 (- (length snake) 1))))
                    (= grow (if (& (> grow 0) (<= bitten 0)) then (- grow 1) else grow))
                    (= bites (if (> bitten 0) then (+ bites 1) else bites))
                    (= snake (concat (list (list (Seg true target))
                                           (map (--> i (updateObj (at snake i) "lead" false)) kept))))
                    (if eats
                     then (let (= score (+ score 1))
                               (= food (Food (uniformChoice (freeCells snake)))))
                     else food))))))
