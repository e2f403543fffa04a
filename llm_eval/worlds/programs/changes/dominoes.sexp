; CHANGED PROGRAM (change detection): a leaning domino reaches three cells instead of two (it bridges a gap of two empty cells), once the trigger has held.
; dominoes: a row of dominoes stands on a brown floor between two gold bells. A standing
; domino is white and two cells tall. right tips the leftmost standing domino to the right,
; left tips the rightmost one to the left; a tipped domino is yellow (leaning) for one tick,
; then lies flat (gray, two cells long). While it leans it knocks over the nearest standing
; domino within two cells in its direction, which leans the next tick: a chain reaction
; that runs one domino per tick and stops at a gap of more than one empty cell. A domino
; leaning into a bell within reach rings it (orange, for good). A click on the floor row
; places a domino, on a standing domino takes it away, on a lying one stands it up again;
; up stands every lying domino up, down sweeps the lying ones away.
(program
  (= GRID_SIZE 16)

  (object Domino (: st Int)
    (list (Cell 0 0 (if (== st 0) then "white" else (if (| (== st 1) (== st -1)) then "yellow" else "gray")))
          (Cell (if (> st 0) then 1 else (if (< st 0) then -1 else 0))
                (if (| (== st 2) (== st -2)) then 0 else -1)
                (if (== st 0) then "white" else (if (| (== st 1) (== st -1)) then "yellow" else "gray")))))
  (object Bell (: rung Bool) (list (Cell 0 0 (if rung then "orange" else "gold")) (Cell 0 -1 (if rung then "orange" else "gold"))))
  (object Floor (map (--> i (Cell i 0 "brown")) (range 0 16)))

  (= floor (Floor (Position 0 15)))
  (= reach 2)
  (= px (--> o (.. (.. o origin) x)))
  (= sign0 (--> n (if (> n 0) then 1 else (if (< n 0) then -1 else 0))))
  (= standingAt (--> (cx ds) (any (--> d (& (== (.. d st) 0) (== (px d) cx))) ds)))
  (= clearBetween (--> (a b ds) (! (any (--> d (& (== (.. d st) 0) (& (> (px d) (min a b)) (< (px d) (max a b))))) ds))))
  ; is the spot cx struck by a domino leaning in direction dir (1 right, -1 left)?
  (= struck (--> (cx dir ds)
    (any (--> f (& (== (.. f st) dir) (& (== (sign0 (- cx (px f))) dir)
                  (& (<= (abs (- cx (px f))) (if changed then 3 else reach)) (clearBetween (px f) cx ds))))) ds)))
  (= topple (--> (d ds)
    (if (| (== (.. d st) 1) (== (.. d st) -1)) then (updateObj d "st" (* 2 (.. d st)))
     else (if (== (.. d st) 0)
           then (if (struck (px d) 1 ds) then (updateObj d "st" 1)
                 else (if (struck (px d) -1 ds) then (updateObj d "st" -1) else d))
           else d))))
  (= onFloor (--> q (& (& (>= (.. q x) 1) (<= (.. q x) 14)) (| (== (.. q y) 13) (== (.. q y) 14)))))
  (= at14 (--> (cx ds) (filter (--> d (== (px d) cx)) ds)))

  (= dominoes (initnext (map (--> i (Domino 0 (Position i 14))) (list 2 3 5 7 8 11 13)) (prev dominoes)))
  (= bells (initnext (list (Bell false (Position 0 14)) (Bell false (Position 15 14))) (prev bells)))
  (= rings (initnext 0 (prev rings)))
  (= tips (initnext 0 (prev tips)))
  (= placed (initnext 0 (prev placed)))
  (= pushes (initnext 0 (prev pushes)))

  ; the chain reaction: leaning dominoes lie down and knock over the next; bells ring
  (on true
    (let (= ds dominoes)
         (= newBells (map (--> b (if (.. b rung) then b
                                  else (if (struck (px b) (if (== (px b) 0) then -1 else 1) ds)
                                        then (updateObj b "rung" true) else b))) bells))
         (= rings (+ rings (length (filter (--> b (.. b rung)) newBells))))
         (= rings (- rings (length (filter (--> b (.. b rung)) bells))))
         (= bells newBells)
         (= dominoes (map (--> d (topple d ds)) ds))))

  (on (| left right) (= pushes (+ pushes 1)))
  (on (& right (any (--> d (== (.. d st) 0)) dominoes))
    (let (= first (foldl (--> (m d) (if (== (.. d st) 0) then (min m (px d)) else m)) 99 dominoes))
         (= dominoes (map (--> d (if (== (px d) first) then (updateObj d "st" 1) else d)) dominoes))
         (= tips (+ tips 1))))
  (on (& left (any (--> d (== (.. d st) 0)) dominoes))
    (let (= last (foldl (--> (m d) (if (== (.. d st) 0) then (max m (px d)) else m)) -99 dominoes))
         (= dominoes (map (--> d (if (== (px d) last) then (updateObj d "st" -1) else d)) dominoes))
         (= tips (+ tips 1))))
  (on up (= dominoes (map (--> d (if (| (== (.. d st) 2) (== (.. d st) -2)) then (updateObj d "st" 0) else d)) dominoes)))
  (on down (= dominoes (filter (--> d (| (== (.. d st) 0) (| (== (.. d st) 1) (== (.. d st) -1)))) dominoes)))
  (on (& clicked (onFloor click))
    (let (= here (at14 (.. click x) dominoes))
         (if (== (length here) 0)
          then (let (= dominoes (addObj dominoes (Domino 0 (Position (.. click x) 14)))) (= placed (+ placed 1)))
          else (if (== (.. (head here) st) 0)
                then (= dominoes (filter (--> d (!= (px d) (.. click x))) dominoes))
                else (if (| (== (.. (head here) st) 2) (== (.. (head here) st) -2))
                      then (= dominoes (map (--> d (if (== (px d) (.. click x)) then (updateObj d "st" 0) else d)) dominoes))
                      else dominoes)))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true)))
