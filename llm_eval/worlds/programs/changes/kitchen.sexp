; CHANGED PROGRAM (change detection): a click on the fuel can or gauge refills only 1 unit of fuel instead of 4, once the trigger has held.
; kitchen: a 16x16 kitchen with a three-burner stove. Raw food (pink) waits on the counter
; (row 14); new pieces arrive at random. left/right move the cook's white hand under the
; burners (x 4, 8, 12), down puts the next waiting piece on the burner above the hand, up
; takes the food off that burner and serves it. Food on a burner heats one step per tick
; while the stove has fuel (burner red): raw pink, then orange (nearly done), brown (done, 3
; ticks), then dark gray (burnt); a silver bar beside it grows a cell per step of heat. Serving it brown scores a green pip (row 0 from the left);
; raw, orange or burnt scores a red pip (from the right). The fuel gauge (orange, column 15)
; runs down at random while anything cooks; with no fuel nothing cooks and the burners go
; gray. A click on the yellow fuel can (15,13) or on the gauge refills 4 units (up to 10).
(program
  (= GRID_SIZE 16)

  (object Pan (: slot Int) (: heat Int)
    (concat (list
      (list (Cell 0 0 (if (< heat 3) then "pink" else (if (< heat 5) then "orange"
                       else (if (< heat 8) then "brown" else "darkgray")))))
      (map (--> k (Cell 1 (if (< k heat) then (- 0 k) else 40) "silver")) (range 0 8)))))
  (object Burner (: lit Bool) (Cell 0 0 (if lit then "red" else "gray")))
  (object Hand (Cell 0 0 "white"))
  (object Piece (Cell 0 0 "pink"))
  (object Counter (map (--> i (Cell i 0 "tan")) (range 0 12)))
  (object Fuel (Cell 0 0 "orange"))
  (object Can (Cell 0 0 "yellow"))
  (object Pip (: good Bool) (Cell 0 0 (if good then "green" else "red")))

  (= slotX (--> k (+ 4 (* 4 k))))
  (= panIn (--> k (filter (--> pn (== (.. pn slot) k)) pans)))
  (= onTank (--> q (& (== (.. q x) 15) (& (>= (.. q y) 3) (<= (.. q y) 13)))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= fuel (initnext 4 (prev fuel)))
  (= burn (initnext 0 0))
  (= refill (initnext 0 0))
  (= served (initnext 0 (prev served)))
  (= ruined (initnext 0 (prev ruined)))
  (= waiting (initnext 3 (prev waiting)))
  (= slotAt (initnext 0 (prev slotAt)))
  (= pans (initnext (list) (prev pans)))
  (= counter (initnext (Counter (Position 2 15)) (prev counter)))
  (= burners (initnext (map (--> k (Burner false (Position (slotX k) 9))) (range 0 3)) (prev burners)))
  (= hand (initnext (Hand (Position 4 11)) (Hand (Position (slotX slotAt) 11))))
  (= pieces (initnext (map (--> i (Piece (Position (+ 4 i) 14))) (range 0 3)) (prev pieces)))
  (= can (initnext (Can (Position 15 13)) (prev can)))
  (= gauge (initnext (map (--> i (Fuel (Position 15 (- 12 i)))) (range 0 4)) (prev gauge)))
  (= pips (initnext (list) (prev pips)))

  (on (& left (> slotAt 0)) (= slotAt (- slotAt 1)))
  (on (& right (< slotAt 2)) (= slotAt (+ slotAt 1)))
  (on (& down (& (> waiting 0) (== (length (panIn slotAt)) 0)))
    (let (= pans (addObj pans (Pan slotAt 0 (Position (slotX slotAt) 8))))
         (= waiting (- waiting 1))))
  (on (& up (> (length (panIn slotAt)) 0))
    (let (= done (.. (head (panIn slotAt)) heat))
         (if (& (>= done 5) (< done 8)) then (= served (+ served 1)) else (= ruined (+ ruined 1)))
         (= pans (removeObj pans (--> pn (== (.. pn slot) slotAt))))))
  (on (& clicked (onTank click))
    (let (= refill 1)
         (= fuel (min 10 (+ fuel (if changed then 1 else 4))))))
  (on true
    (let (= cooking (& (> fuel 0) (> (length pans) 0)))
         (= pans (if cooking then (map (--> pn (updateObj pn "heat" (+ (.. pn heat) 1))) pans) else pans))
         (= burn (if cooking then (uniformChoice (list 0 1)) else 0))
         (= fuel (- fuel burn))
         (= waiting (if (& (== (% clock 4) 3) (< waiting 8)) then (+ waiting (uniformChoice (list 0 1))) else waiting))
         (= burners (map (--> k (Burner (& (> fuel 0) (> (length (panIn k)) 0)) (Position (slotX k) 9))) (range 0 3)))
         (= pieces (map (--> i (Piece (Position (+ 4 i) 14))) (range 0 waiting)))
         (= gauge (map (--> i (Fuel (Position 15 (- 12 i)))) (range 0 fuel)))
         (= pips (concat (list (map (--> i (Pip true (Position i 0))) (range 0 (min served 7)))
                               (map (--> i (Pip false (Position (- 15 i) 0))) (range 0 (min ruined 7))))))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true)))
