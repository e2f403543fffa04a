; CHANGED PROGRAM (change detection): a click also toggles the four diagonal neighbours of the clicked cell, once the trigger has held.
; lightsout: a 6x6 lights-out puzzle. Every cell is a light, yellow when on, dark when off.
; A click on a cell toggles it and its four neighbours (left, right, up, down; none wrap).
; Extra rule: the arrows roll the whole board one cell in their direction, wrapping
; around the edges (a light pushed off the right edge comes back on the left), so a
; pattern can be moved to where a click fits it. Noop changes nothing.
(program
  (= GRID_SIZE 6)

  (object Light (Cell 0 0 "yellow"))

  (= onBoard (--> p (& (>= (.. p x) 0) (& (< (.. p x) 6) (& (>= (.. p y) 0) (< (.. p y) 6))))))
  (= plus (--> p (filter onBoard (list p (Position (- (.. p x) 1) (.. p y)) (Position (+ (.. p x) 1) (.. p y))
                                       (Position (.. p x) (- (.. p y) 1)) (Position (.. p x) (+ (.. p y) 1))))))
  ; lights in exactly one of the two lists
  ; lit lights are kept in board order (column by column), so a board has one state
  (= boardCells (allPositions 6))
  (= canon (--> ls (filter (--> q (in q ls)) boardCells)))
  (= flip (--> (ls ts) (canon (concat (list (filter (--> q (! (in q ts))) ls) (filter (--> q (! (in q ls))) ts))))))
  (= roll (--> (ls sx sy) (canon (map (--> q (Position (% (+ (.. q x) (+ sx 6)) 6) (% (+ (.. q y) (+ sy 6)) 6))) ls))))

  ; three lights-out crosses: two plain ones and one wrapped around the right edge
  (= startLit (list (Position 1 0) (Position 5 0) (Position 1 1) (Position 2 1) (Position 4 1) (Position 5 1) (Position 1 2) (Position 5 2) (Position 3 3) (Position 2 4) (Position 3 4) (Position 4 4) (Position 3 5)))
  (= lit (initnext (canon startLit) (prev lit)))
  ; a press count that stops at 2, whether the board was ever rolled, and whether this tick
  ; pressed a light (bounded, so that states that look alike are alike)
  (= presses (initnext 0 (prev presses)))
  (= rolled (initnext false (prev rolled)))
  (= pressed (initnext false false))
  (= lights (initnext (map (--> q (Light q)) startLit) (map (--> q (Light q)) lit)))

  (on left (let (= lit (roll lit -1 0)) (= rolled true)))
  (on right (let (= lit (roll lit 1 0)) (= rolled true)))
  (on up (let (= lit (roll lit 0 -1)) (= rolled true)))
  (on down (let (= lit (roll lit 0 1)) (= rolled true)))
  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))
  (= corners (--> p (filter onBoard (list (Position (- (.. p x) 1) (- (.. p y) 1)) (Position (+ (.. p x) 1) (- (.. p y) 1))
                                          (Position (- (.. p x) 1) (+ (.. p y) 1)) (Position (+ (.. p x) 1) (+ (.. p y) 1))))))

  (on (& clicked (onBoard click))
    (let (= lit (flip lit (if changed then (concat (list (plus click) (corners click))) else (plus click))))
         (= pressed true)
         (= presses (min 2 (+ presses 1))))))
