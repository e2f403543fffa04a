; relay: a 16x16 room split by a gray wall (x=8) with one brown gate at (8,7). Three bots
; (red, blue, green) start on the left. Exactly one bot is controlled (blue at first): it
; shows its bright colour, the others are dark. A click on a bot makes it the controlled
; one; the arrows move only the controlled bot, one cell, never into the wall, the edge or
; another bot; noop and other clicks change nothing. The gate
; is open (drawn as floor) while some bot stands on a white plate (one on each side) or in
; the gateway itself. Each bot has a pad of its own colour on the right (pink for red,
; lightblue for blue, lightgreen for green); a bot standing on its pad counts as home.
(program
  (= GRID_SIZE 16)

  (object Bot (: tint Int) (: lead Bool)
    (Cell 0 0 (at (if lead then brights else darks) tint)))
  (object Wall (map (--> i (Cell 0 i "gray")) (list 0 1 2 3 4 5 6 8 9 10 11 12 13 14 15)))
  (object Gate (: shut Bool) (Cell 0 0 (if shut then "brown" else "black")))
  (object Plate (Cell 0 0 "white"))
  (object Pad (: tint Int) (Cell 0 0 (at padColours tint)))

  (= brights (list "red" "blue" "green"))
  (= darks (list "darkred" "darkblue" "darkgreen"))
  (= padColours (list "pink" "lightblue" "lightgreen"))
  (= gateSpot (Position 8 7))
  (= plateSpots (list (Position 6 9) (Position 10 5)))
  (= padSpots (list (Position 12 9) (Position 12 4) (Position 13 12)))

  (= shifted (--> (q dx dy) (Position (+ (.. q x) dx) (+ (.. q y) dy))))
  (= spots (--> bs (map (--> b (.. b origin)) bs)))
  (= opened (--> bs (any (--> q (| (in q plateSpots) (== q gateSpot))) (spots bs))))
  (= free (--> q (& (& (& (>= (.. q x) 0) (< (.. q x) 16)) (& (>= (.. q y) 0) (< (.. q y) 16)))
                    (& (| (!= (.. q x) 8) (& (== q gateSpot) (opened bots)))
                       (! (in q (spots bots)))))))
  (= homeCount (--> bs (length (filter (--> b (== (.. b origin) (at padSpots (.. b tint)))) bs))))

  ; move the controlled bot by (dx, dy) if the cell is free
  (= nudge (--> (dx dy)
    (let (= boss (head (filter (--> b (.. b lead)) bots)))
         (= dest (shifted (.. boss origin) dx dy))
         (if (free dest)
          then (let (= bots (map (--> b (if (.. b lead) then (updateObj b "origin" dest) else b)) bots))
                    (= steps (+ steps 1)))
          else steps))))

  (= steps (initnext 0 (prev steps)))
  (= switches (initnext 0 (prev switches)))
  (= picked (initnext -1 -1))
  (= homed (initnext 0 (prev homed)))
  (= wall (initnext (Wall (Position 8 0)) (prev wall)))
  (= pads (initnext (map (--> i (Pad i (at padSpots i))) (range 0 3)) (prev pads)))
  (= plates (initnext (map (--> q (Plate q)) plateSpots) (prev plates)))
  (= gate (initnext (Gate true gateSpot) (prev gate)))
  (= bots (initnext (list (Bot 0 false (Position 4 6)) (Bot 1 true (Position 4 9))
                          (Bot 2 false (Position 2 12)))
                    (prev bots)))

  (on left (nudge -1 0))
  (on right (nudge 1 0))
  (on up (nudge 0 -1))
  (on down (nudge 0 1))
  (on (clicked bots)
    (let (= picked (.. (head (filter (--> b (== (.. b origin) click)) bots)) tint))
         (if (.. (at bots picked) lead) then switches
          else (let (= bots (map (--> b (updateObj b "lead" (== (.. b tint) picked))) bots))
                    (= switches (+ switches 1))))))
  (on true
    (let (= gate (updateObj gate "shut" (! (opened bots))))
         (= homed (homeCount bots)))))
