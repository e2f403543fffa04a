; lanterns: a 16x16 dark maze (rows 0-14; row 15 is a status bar). Everything is dark
; (black) except what a light falls on: the white player carries a light that shows the
; cells within 2 steps of it (floor dark gray, walls gray, unlit lanterns brown). Arrows
; walk the player; walls block it. Walking into an unlit lantern lights it: it turns
; yellow and lights the 5x5 square around it for good. A click throws a flare (orange) that
; lights the 3x3 square around the clicked cell for 3 ticks; the player has 3 flares (orange
; cells at the left of the status bar), one flare burns at a time. Lit lanterns are counted
; by yellow cells at the right of the status bar.
; The maze (# wall, . floor, L lantern):
;   ################
;   #......#.......#
;   #.L....#....L..#
;   #......#.......#
;   #..#####..###..#
;   #..............#
;   ####.####.###..#
;   #.......#...#..#
;   #.L.....#.L.#..#
;   #.......#...#..#
;   #..######...####
;   #..............#
;   #.....###...L..#
;   #.....#.#......#
;   ################
(program
  (= GRID_SIZE 16)

  (object Tile (: hue String) (Cell 0 0 hue))
  (object Player (Cell 0 0 "white"))
  (object Flare (: burn Int) (Cell 0 0 "orange"))

  ; the colour of every map cell when it is lit, row by row (x + 16 y)
  (= mapHues (list
    "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray"
    "gray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "gray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "gray"
    "gray" "darkgray" "brown" "darkgray" "darkgray" "darkgray" "darkgray" "gray" "darkgray" "darkgray" "darkgray" "darkgray" "brown" "darkgray" "darkgray" "gray"
    "gray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "gray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "gray"
    "gray" "darkgray" "darkgray" "gray" "gray" "gray" "gray" "gray" "darkgray" "darkgray" "gray" "gray" "gray" "darkgray" "darkgray" "gray"
    "gray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "gray"
    "gray" "gray" "gray" "gray" "darkgray" "gray" "gray" "gray" "gray" "darkgray" "gray" "gray" "gray" "darkgray" "darkgray" "gray"
    "gray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "gray" "darkgray" "darkgray" "darkgray" "gray" "darkgray" "darkgray" "gray"
    "gray" "darkgray" "brown" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "gray" "darkgray" "brown" "darkgray" "gray" "darkgray" "darkgray" "gray"
    "gray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "gray" "darkgray" "darkgray" "darkgray" "gray" "darkgray" "darkgray" "gray"
    "gray" "darkgray" "darkgray" "gray" "gray" "gray" "gray" "gray" "gray" "darkgray" "darkgray" "darkgray" "gray" "gray" "gray" "gray"
    "gray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "gray"
    "gray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "gray" "gray" "gray" "darkgray" "darkgray" "darkgray" "brown" "darkgray" "darkgray" "gray"
    "gray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "gray" "darkgray" "gray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "darkgray" "gray"
    "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray" "gray"
    ))
  (= lanternSpots (list (Position 2 2) (Position 12 2) (Position 2 8) (Position 10 8) (Position 12 12)))
  (= diamond (list (Position 0 -2) (Position -1 -1) (Position 0 -1) (Position 1 -1)
                   (Position -2 0) (Position -1 0) (Position 0 0) (Position 1 0) (Position 2 0)
                   (Position -1 1) (Position 0 1) (Position 1 1) (Position 0 2)))
  (= square3 (concat (map (--> dy (map (--> dx (Position dx dy)) (range -1 2))) (range -1 2))))
  (= square5 (concat (map (--> dy (map (--> dx (Position dx dy)) (range -2 3))) (range -2 3))))

  (= onMap (--> q (& (& (>= (.. q x) 0) (< (.. q x) 16)) (& (>= (.. q y) 0) (< (.. q y) 15)))))
  (= hueAt (--> q (at mapHues (+ (.. q x) (* 16 (.. q y))))))
  ; the tiles a light at q shows through the shape `offsets`
  (= lightUp (--> (q offsets)
    (map (--> s (Tile (hueAt s) s))
         (filter onMap (map (--> d (Position (+ (.. q x) (.. d x)) (+ (.. q y) (.. d y)))) offsets)))))

  (= flares (initnext 3 (prev flares)))
  (= litCount (initnext 0 (prev litCount)))
  (= glow (initnext (list) (prev glow)))
  (= torch (initnext (lightUp (Position 3 12) diamond) (prev torch)))
  (= flareLight (initnext (list) (prev flareLight)))
  (= lit (initnext (list) (prev lit)))
  (= flare (initnext (list) (prev flare)))
  (= player (initnext (Player (Position 3 12)) (prev player)))
  (= bar (initnext (map (--> i (Tile "orange" (Position i 15))) (range 0 3)) (prev bar)))

  (= isLit (--> q (any (--> l (== (.. l origin) q)) lit)))
  (= walk (--> (sx sy)
    (let (= aim (Position (+ (.. (.. player origin) x) sx) (+ (.. (.. player origin) y) sy)))
         (if (! (onMap aim)) then player
          else (if (== (hueAt aim) "gray") then player
          else (if (in aim lanternSpots)
                then (if (isLit aim) then player
                      else (let (= lit (addObj lit (Tile "yellow" aim)))
                                (= glow (concat (list glow (lightUp aim square5))))
                                (= litCount (+ litCount 1))))
          else (let (= player (updateObj player "origin" aim))
                    (= torch (lightUp aim diamond)))))))))

  (on left (walk -1 0))
  (on right (walk 1 0))
  (on up (walk 0 -1))
  (on down (walk 0 1))
  (on (& clicked (& (onMap click) (& (> flares 0) (== (length flare) 0))))
    (let (= flare (list (Flare 4 click)))
         (= flareLight (lightUp click square3))
         (= flares (- flares 1))))
  (on true
    (let (= flare (updateObj (removeObj flare (--> f (<= (.. f burn) 1))) (--> f (updateObj f "burn" (- (.. f burn) 1)))))
         (= flareLight (if (== (length flare) 0) then (list) else flareLight))
         (= bar (concat (list (map (--> i (Tile "orange" (Position i 15))) (range 0 flares))
                              (map (--> i (Tile "yellow" (Position (- 15 i) 15))) (range 0 litCount))))))))
