; CHANGED PROGRAM (change detection): soft stones smash the glass too (hardness no longer matters), once the trigger has held.
; shatter: a white thrower on the bottom row (left/right move it) throws a gray stone
; straight up with the up key. Every stone looks the same, but each one is made hard or
; soft at random the moment it is thrown, and stays so. Stones fly one cell per tick. A hard
; stone that reaches a lightblue glass pane smashes it and is gone; a soft stone bounces off
; the glass and falls back; a falling stone that lands on the thrower is caught, elsewhere it
; drops out at the bottom. Two rows of glass hang at the top. A click on an empty slot of the
; glass rows puts a new pane in it. At most three stones fly at a time; down does nothing.
(program
  (= GRID_SIZE 16)

  (object Pane (Cell 0 0 "lightblue"))
  (object Stone (: hard Bool) (: vy Int) (Cell 0 0 "gray"))
  (object Thrower (Cell 0 0 "white"))

  (= slotRow (--> q (& (& (>= (.. q x) 1) (<= (.. q x) 14)) (| (== (.. q y) 4) (== (.. q y) 5)))))
  (= paneAt (--> (q ps) (any (--> p (== (.. p origin) q)) ps)))
  (= above (--> s (Position (.. (.. s origin) x) (- (.. (.. s origin) y) 1))))
  (= below (--> s (Position (.. (.. s origin) x) (+ (.. (.. s origin) y) 1))))
  ; a stone flying up with glass right above it
  (= atGlass (--> (s ps) (& (== (.. s vy) -1) (paneAt (above s) ps))))
  (= smashes (--> (s ps) (& (atGlass s ps) (| changed (.. s hard)))))
  (= gone (--> s (if (== (.. s vy) -1) then (== (.. (.. s origin) y) 0) else (>= (.. (.. s origin) y) 14))))
  (= fly (--> (s ps) (if (atGlass s ps) then (updateObj (updateObj s "vy" 1) "origin" (below s))
                      else (updateObj s "origin" (if (== (.. s vy) -1) then (above s) else (below s))))))

  (= panes (initnext (map (--> q (Pane q)) (concat (list (map (--> i (Position i 4)) (range 1 15))
                                                         (map (--> i (Position i 5)) (range 1 15)))))
                     (prev panes)))
  (= stones (initnext (list) (prev stones)))
  (= thrower (initnext (Thrower (Position 7 15)) (prev thrower)))
  (= thrown (initnext 0 (prev thrown)))
  (= broken (initnext 0 (prev broken)))
  (= caught (initnext 0 (prev caught)))
  (= glazed (initnext 0 (prev glazed)))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  ; flight: smash, bounce, catch, move
  (on true
    (let (= glass panes)
         (= hitters (filter (--> s (smashes s glass)) stones))
         (= landing (filter (--> s (& (== (.. s vy) 1) (== (below s) (.. thrower origin)))) stones))
         (= panes (removeObj glass (--> p (any (--> s (== (above s) (.. p origin))) hitters))))
         (= broken (+ broken (length hitters)))
         (= caught (+ caught (length landing)))
         (= stones (map (--> s (fly s glass))
                        (filter (--> s (! (| (smashes s glass) (gone s)))) stones)))))

  (on (& left (> (.. (.. thrower origin) x) 0)) (= thrower (moveLeft thrower)))
  (on (& right (< (.. (.. thrower origin) x) 15)) (= thrower (moveRight thrower)))
  (on (& up (< (length stones) 3))
    (let (= stones (addObj stones (Stone (uniformChoice (list true false)) -1
                                         (Position (.. (.. thrower origin) x) 14))))
         (= thrown (+ thrown 1))))
  (on (& clicked (& (slotRow click) (! (paneAt click panes))))
    (let (= panes (addObj panes (Pane click))) (= glazed (+ glazed 1)))))
