; CHANGED PROGRAM (change detection): a click turns a belt a quarter anticlockwise instead of clockwise, once the trigger has held.
; conveyor: a 16x16 sorting floor. down makes the source (top left) put a box of the
; colour it shows on the belt; every tick each box moves one cell the way the belt under it points (blue right,
; darkblue down, steelblue left, lightblue up), waiting while the cell ahead holds a box.
; The belts lead to three bins on row 13 (darkorange, lightcyan and purple cells, taking
; orange, cyan and magenta boxes); a box dropped into the
; bin of its own colour adds a pip of that colour on row 15 under the bin, a box in a wrong bin adds
; a red mark on row 0, and a box carried off the belts falls off and is lost. A click on a
; belt turns it a quarter clockwise (so junctions send boxes another way). left, up and
; right set the colour of the next boxes (orange, cyan, magenta). A click on the source
; switches its automatic feed (a box every 4 ticks; lamp left of it white when on) on or off.
; Counters are capped (pips at 5 per bin, red marks at 16), so nothing grows without bound.
(program
  (= GRID_SIZE 16)

  ; dir: 0 right, 1 down, 2 left, 3 up
  (object Belt (: dir Int)
    (Cell 0 0 (if (== dir 0) then "blue" else (if (== dir 1) then "darkblue"
               else (if (== dir 2) then "steelblue" else "lightblue")))))
  (object Box (: tint Int) (Cell 0 0 (at tints tint)))
  (object Bin (: want Int) (Cell 0 0 (at binTints want)))
  (object Source (: tint Int) (: feeding Bool)
    (list (Cell 0 0 (at tints tint)) (Cell -1 0 (if feeding then "white" else "gray"))))
  (object Pip (: tint Int) (Cell 0 0 (at tints tint)))
  (object Mark (Cell 0 0 "red"))

  (= tints (list "orange" "cyan" "magenta"))
  (= binTints (list "darkorange" "lightcyan" "purple"))
  (= steps (list (Position 1 0) (Position 0 1) (Position -1 0) (Position 0 -1)))
  (= run (--> (x0 x1 y0 y1 d) (concat (map (--> x (map (--> y (Belt d (Position x y))) (range y0 y1))) (range x0 x1)))))
  (= bins (list (Bin 0 (Position 13 13)) (Bin 1 (Position 7 13)) (Bin 2 (Position 1 13))))
  (= mouth (Position 2 2))

  ; the belts' list order is fixed (only directions change), so a cell's belt is found by
  ; arithmetic: its index in belts, or -1 off the belts
  (= beltIndex (--> q (let (= x (.. q x)) (= y (.. q y))
    (if (& (== y 2) (& (>= x 2) (<= x 12))) then (- x 2)
     else (if (& (== x 13) (& (>= y 2) (<= y 12))) then (+ y 9)
     else (if (& (== x 7) (& (>= y 3) (<= y 12))) then (+ y 19)
     else (if (& (== y 8) (& (>= x 2) (<= x 6))) then (+ x 30)
     else (if (& (== x 1) (& (>= y 8) (<= y 12))) then (+ y 29) else -1))))))))
  ; the bin at a cell: the colour it wants, or -1
  (= binWant (--> q (if (!= (.. q y) 13) then -1
                     else (if (== (.. q x) 13) then 0 else (if (== (.. q x) 7) then 1
                     else (if (== (.. q x) 1) then 2 else -1))))))
  (= boxAt (--> (q bs) (any (--> b (== (.. b origin) q)) bs)))
  (= aheadOf (--> bx (let (= under (beltIndex (.. bx origin)))
                         (if (< under 0) then (.. bx origin)
                          else (let (= d (at steps (.. (at belts under) dir)))
                                    (Position (+ (.. (.. bx origin) x) (.. d x)) (+ (.. (.. bx origin) y) (.. d y))))))))
  ; boxes in list order; a box moves if its cell ahead held no box in the last frame and no
  ; box has entered it this tick
  (= advance (--> (moved bx)
    (let (= q (aheadOf bx))
         (if (| (== q (.. bx origin)) (| (boxAt q staying) (boxAt q moved)))
          then (addObj moved bx)
          else (addObj moved (updateObj bx "origin" q))))))
  (= bar (--> (n x0 cap c) (map (--> i (Pip c (Position (+ x0 i) 15))) (range 0 (min n cap)))))

  ; the feed's phase: counts 0..3 while the feed is on, stays 0 while it is off
  (= phase (initnext 0 (if (.. (prev source) feeding) then (% (+ (prev phase) 1) 4) else 0)))
  (= turns (initnext 0 (prev turns)))
  (= inA (initnext 0 (prev inA)))
  (= inB (initnext 0 (prev inB)))
  (= inC (initnext 0 (prev inC)))
  (= wrong (initnext 0 (prev wrong)))
  (= lost (initnext 0 (prev lost)))
  (= belts (initnext (concat (list (run 2 13 2 3 0) (run 13 14 2 13 1) (run 7 8 3 13 1)
                                   (run 2 7 8 9 2) (run 1 2 8 13 1)))
                     (prev belts)))
  (= boxes (initnext (list) (prev boxes)))
  (= source (initnext (Source 0 false (Position 1 2)) (prev source)))
  (= pips (initnext (list) (concat (list (bar inA 13 3 0) (bar inB 7 5 1) (bar inC 1 5 2)))))
  (= marks (initnext (list) (map (--> i (Mark (Position i 0))) (range 0 (min wrong 16)))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on left (= source (updateObj source "tint" 0)))
  (on up (= source (updateObj source "tint" 1)))
  (on right (= source (updateObj source "tint" 2)))

  (on (clicked source) (= source (updateObj source "feeding" (! (.. source feeding)))))
  (on (clicked belts)
    (let (= belts (map (--> b (if (== (.. b origin) click) then (updateObj b "dir" (% (+ (.. b dir) (if changed then 3 else 1)) 4)) else b)) belts))
         (= turns (min 4 (+ turns 1)))))

  ; boxes drop into bins, fall off where there is no belt, then move; the source feeds
  (on true
    (let (= landed (filter (--> bx (>= (binWant (.. bx origin)) 0)) boxes))
         (= good (filter (--> bx (== (.. bx tint) (binWant (.. bx origin)))) landed))
         (= inA (min 5 (+ inA (length (filter (--> bx (== (.. bx tint) 0)) good)))))
         (= inB (min 5 (+ inB (length (filter (--> bx (== (.. bx tint) 1)) good)))))
         (= inC (min 5 (+ inC (length (filter (--> bx (== (.. bx tint) 2)) good)))))
         (= wrong (min 16 (+ wrong (- (length landed) (length good)))))
         (= staying (filter (--> bx (>= (beltIndex (.. bx origin)) 0)) boxes))
         (= lost (min 3 (+ lost (- (- (length boxes) (length landed)) (length staying)))))
         (= boxes (foldl advance (list) staying))
         (if (& (| ((down)) (& (.. source feeding) (== phase 0)))
                (& (! (boxAt mouth boxes)) (< (length boxes) 12)))
          then (= boxes (addObj boxes (Box (.. source tint) mouth)))
          else boxes))))
