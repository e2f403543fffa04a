; CHANGED PROGRAM (change detection): shots fly two cells a tick instead of one, once the trigger has held.
; slingshot: arrows walk the white slinger around the lower half of the field. Gray
; pebbles turn up at random spots there every few ticks; walking onto one picks it up
; (gray pips on the top row count the stock). A click fires one pebble from the stock:
; the yellow shot flies from the slinger straight towards the clicked cell's side (up,
; down, left or right, whichever is farther), one cell a tick, until it leaves the field.
; Red birds enter from the left edge on random rows of the upper half and fly right, a
; cell every other tick; a shot that meets a bird downs it (a gold pip, from the top right).
(program
  (= GRID_SIZE 16)

  (object Slinger (Cell 0 0 "white"))
  (object Pebble (Cell 0 0 "gray"))
  (object Shot (: vx Int) (: vy Int) (Cell 0 0 "yellow"))
  (object Bird (Cell 0 0 "red"))
  (object Pip (: look String) (Cell 0 0 look))

  (= shiftBy (--> (q sx sy) (Position (+ (.. q x) sx) (+ (.. q y) sy))))
  (= inside (--> q (& (>= (.. q x) 0) (& (< (.. q x) 16) (& (>= (.. q y) 0) (< (.. q y) 16))))))
  (= inField (--> q (& (inside q) (>= (.. q y) 1))))
  (= spotsOf (--> objs (map (--> k (.. k origin)) objs)))
  (= lowRows (range 9 16))
  (= skyRows (range 2 7))
  (= columns (range 0 16))
  ; the side of the slinger a click lies on (vertical when it is at least as far as sideways)
  (= aimAt (--> (from to)
    (let (= ax (- (.. to x) (.. from x)))
         (= ay (- (.. to y) (.. from y)))
         (if (>= (abs ay) (abs ax)) then (Position 0 (sign ay)) else (Position (sign ax) 0)))))
  (= hitBy (--> (b s) (| (== (.. b origin) (.. s origin))
                         (& (== (.. b origin) (shiftBy (.. s origin) (- (.. s vx)) (- (.. s vy))))
                            (== (.. s origin) (shiftBy (.. b origin) -1 0))))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= stock (initnext 0 (prev stock)))
  (= fired (initnext 0 (prev fired)))
  (= downed (initnext 0 (prev downed)))
  (= gathered (initnext 0 (prev gathered)))
  (= pebbles (initnext (list (Pebble (Position 3 12))) (prev pebbles)))
  (= birds (initnext (list (Bird (Position 0 4))) (prev birds)))
  (= shots (initnext (list) (prev shots)))
  (= slinger (initnext (Slinger (Position 7 13)) (prev slinger)))
  (= pips (initnext (list)
    (concat (list (map (--> i (Pip "gray" (Position i 0))) (range 0 (min stock 7)))
                  (map (--> i (Pip "gold" (Position (- 15 i) 0))) (range 0 (min downed 8)))))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on (& left (> (.. (.. slinger origin) x) 0)) (= slinger (moveLeft slinger)))
  (on (& right (< (.. (.. slinger origin) x) 15)) (= slinger (moveRight slinger)))
  (on (& up (> (.. (.. slinger origin) y) 9)) (= slinger (moveUp slinger)))
  (on (& down (< (.. (.. slinger origin) y) 15)) (= slinger (moveDown slinger)))

  (on true
    (let (= here (.. slinger origin))
         ; pick up a pebble under the slinger
         (= found (filter (--> p (== (.. p origin) here)) pebbles))
         (= stock (+ stock (length found)))
         (= gathered (+ gathered (length found)))
         (= pebbles (removeObj pebbles (--> p (== (.. p origin) here))))
         ; shots fly, birds fly (every other tick); a shot meeting a bird downs it
         (= flown (filter (--> s (inField (.. s origin)))
                          (map (--> s (updateObj s "origin" (shiftBy (.. s origin) (* (if changed then 2 else 1) (.. s vx)) (* (if changed then 2 else 1) (.. s vy))))) shots)))
         (= flying (filter (--> b (inside (.. b origin)))
                           (if (== (% clock 2) 1) then (map moveRight birds) else birds)))
         (= struck (filter (--> b (any (--> s (hitBy b s)) flown)) flying))
         (= downed (+ downed (length struck)))
         (= birds (removeObj flying (--> b (any (--> s (hitBy b s)) flown))))
         (= shots (removeObj flown (--> s (any (--> b (hitBy b s)) flying))))
         ; every 4 ticks a pebble may turn up at a random spot of the lower half, every 6
         ; ticks a bird may enter on a random row of the upper half (the draws happen
         ; every time)
         (= pebbleSpot (Position (uniformChoice columns) (uniformChoice lowRows)))
         (= birdRow (uniformChoice skyRows))
         (if (& (== (% clock 4) 3) (& (< (length pebbles) 3) (& (!= pebbleSpot here) (! (in pebbleSpot (spotsOf pebbles))))))
          then (= pebbles (addObj pebbles (Pebble pebbleSpot))) else pebbles)
         (if (& (== (% clock 6) 5) (< (length birds) 3))
          then (= birds (addObj birds (Bird (Position 0 birdRow)))) else birds)))

  ; a click fires a pebble from the stock (not on the slinger itself); the shot sets off
  ; from the slinger's cell on the next tick
  (on (& clicked (& (> stock 0) (!= click (.. slinger origin))))
    (let (= aim (aimAt (.. slinger origin) click))
         (= shots (addObj shots (Shot (.. aim x) (.. aim y) (.. slinger origin))))
         (= stock (- stock 1))
         (= fired (+ fired 1)))))
