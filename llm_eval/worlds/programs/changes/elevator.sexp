; CHANGED PROGRAM (change detection): a called car travels two rows per tick while the call is two or more rows away, once the trigger has held.
; elevator: a 9x9 building with four floors (rows 7, 5, 3, 1 are floors 0 to 3, dark-gray
; slabs between them) and a one-person elevator car in the shaft (column 4). Passengers
; queue on the left of the shaft (front of the line next to it), coloured by the floor
; they want: red 0, green 1, blue 2, purple 3; a new one arrives every 10 ticks from a fixed
; roster. The car is white when empty and takes its rider's colour. Up/down move the car
; one row. Clicking a floor's call button (column 5; orange while called) sends the car
; there on its own, one row per tick. Left boards the front passenger of the car's floor;
; right lets the rider out: at its floor it is delivered (a gold mark on row 0), elsewhere
; it joins that floor's queue.
(program
  (= GRID_SIZE 9)

  (object Rider (: dest Int) (Cell 0 0 (at floorColours dest)))
  (object Car (: rider Int) (Cell 0 0 (if (< rider 0) then "white" else (at floorColours rider))))
  (object Button (: lit Bool) (Cell 0 0 (if lit then "orange" else "maroon")))
  (object Tile (: look String) (Cell 0 0 look))

  (= floorColours (list "red" "green" "blue" "purple"))
  (= floorRows (list 7 5 3 1))
  (= rowOf (--> f (- 7 (* 2 f))))
  (= floorOf (--> y (/ (- 7 y) 2)))
  (= atFloor (--> y (== (% y 2) 1)))
  ; the roster of arrivals, in turn: (floor, wanted floor)
  (= roster (list (list 0 3) (list 2 0) (list 3 2) (list 1 2) (list 0 1) (list 2 3) (list 3 0) (list 1 3)))
  (= onRow (--> (rs y) (filter (--> w (== (.. (.. w origin) y) y)) rs)))
  ; the k-th passenger waiting on a floor stands at x = 3 - k
  (= lineUp (--> rs (map (--> i (updateObj (at rs i) "origin"
                          (Position (- 3 (length (filter (--> j (== (.. (.. (at rs j) origin) y) (.. (.. (at rs i) origin) y)))
                                                         (range 0 i))))
                                    (.. (.. (at rs i) origin) y))))
                         (range 0 (length rs)))))

  (= slabs (initnext (concat (map (--> y (map (--> x (Tile "darkgray" (Position x y))) (list 0 1 2 3 5 6 7 8)))
                                  (list 2 4 6 8)))
           (prev slabs)))
  (= clock (initnext 0 (+ (prev clock) 1)))
  (= delivered (initnext 0 (prev delivered)))
  (= boarded (initnext 0 (prev boarded)))
  (= arrivals (initnext 0 (prev arrivals)))
  (= target (initnext -1 (prev target)))
  (= tally (initnext (list) (map (--> i (Tile "gold" (Position i 0))) (range 0 (min delivered 9)))))
  (= buttons (initnext (map (--> y (Button false (Position 5 y))) floorRows)
                       (map (--> y (Button (== target y) (Position 5 y))) floorRows)))
  (= waiting (initnext (list (Rider 2 (Position 3 7)) (Rider 3 (Position 3 5)) (Rider 0 (Position 2 5))
                             (Rider 1 (Position 3 1)))
             (prev waiting)))
  (= car (initnext (Car -1 (Position 4 7)) (prev car)))

  (= carY (--> () (.. (.. car origin) y)))
  (= shift (--> dy (updateObj car "origin" (Position 4 (+ ((carY)) dy)))))
  (on (& up (> ((carY)) 1)) (let (= car (shift -1)) (= target -1)))
  (on (& down (< ((carY)) 7)) (let (= car (shift 1)) (= target -1)))
  (on (& left (& (atFloor ((carY))) (& (< (.. car rider) 0) (> (length (onRow waiting ((carY)))) 0))))
    (let (= front (head (onRow waiting ((carY)))))
         (= car (updateObj car "rider" (.. front dest)))
         (= boarded (+ boarded 1))
         (= waiting (removeObj waiting front))))
  (on (& right (& (atFloor ((carY))) (>= (.. car rider) 0)))
    (if (== (.. car rider) (floorOf ((carY))))
     then (let (= delivered (+ delivered 1)) (= car (updateObj car "rider" -1)))
     else (if (< (length (onRow waiting ((carY)))) 4)
           then (let (= waiting (addObj waiting (Rider (.. car rider) (Position 0 ((carY))))))
                     (= car (updateObj car "rider" -1)))
           else car)))
  (on (clicked buttons) (= target (.. click y)))

  ; every tick: the car travels one row toward a call; a passenger arrives every 10 ticks
  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))
  (= stride (--> () (if (& changed (>= (abs (- target ((carY)))) 2)) then 2 else 1)))

  (on (>= target 0)
    (let (= car (if (< ((carY)) target) then (shift ((stride))) else (if (> ((carY)) target) then (shift (- ((stride)))) else car)))
         (if (== ((carY)) target) then (= target -1) else target)))
  (on (== (% clock 10) 9)
    (let (= entry (at roster (% arrivals 8)))
         (= arrivals (+ arrivals 1))
         (if (< (length (onRow waiting (rowOf (head entry)))) 4)
          then (= waiting (addObj waiting (Rider (tail entry) (Position 0 (rowOf (head entry))))))
          else waiting)))
  (on true (= waiting (lineUp waiting))))
