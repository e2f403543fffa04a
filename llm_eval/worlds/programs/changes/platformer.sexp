; CHANGED PROGRAM (change detection): gravity pulls the player down two cells per tick (one when only one is free), once the trigger has held.
; platformer: a side view with gravity. Arrows walk (left/right) and jump (up, 3 cells,
; only from the ground); gold coins are collected by touching them and counted on the top
; row. Standing on the orange-red lava sends the player back to the start; the lava cools
; to stone once 3 coins are collected. Jumping from the magenta spring goes 8 cells high.
; A click on an empty cell places the player's single tan brick there.
(program
  (= GRID_SIZE 16)

  (object Hero (Cell 0 0 "white"))
  (object Coin (Cell 0 0 "gold"))
  (object Stone (Cell 0 0 "gray"))
  (object Lava (: hot Bool) (Cell 0 0 (if hot then "orangered" else "gray")))
  (object Spring (Cell 0 0 "magenta"))
  (object Brick (Cell 0 0 "tan"))
  (object Pip (Cell 0 0 "gold"))

  (= lavaXs (list 7 8 9))
  (= springSpot (Position 14 15))
  (= startSpot (Position 1 14))
  (= ledge (--> (y x0 x1) (map (--> i (Position i y)) (range x0 x1))))
  (= stoneSpots (concat (list
    (map (--> i (Position i 15)) (filter (--> i (& (! (in i lavaXs)) (!= i 14))) (range 0 16)))
    (ledge 12 2 6) (ledge 9 8 13) (ledge 6 3 7) (ledge 7 11 15))))
  (= stones (map (--> q (Stone q)) stoneSpots))
  (= spring (Spring springSpot))
  (= lavaSpots (map (--> i (Position i 15)) lavaXs))
  (= fixedSolid (concat (list stoneSpots lavaSpots (list springSpot))))

  (= score (initnext 0 (prev score)))
  (= deaths (initnext 0 (prev deaths)))
  (= lift (initnext 0 (prev lift)))
  (= brick (initnext (Brick (Position -5 -5)) (prev brick)))
  (= lava (initnext (map (--> q (Lava true q)) lavaSpots)
    (map (--> l (updateObj l "hot" (< score 3))) (prev lava))))
  (= coins (initnext (list (Coin (Position 4 11)) (Coin (Position 10 8)) (Coin (Position 5 5))
                           (Coin (Position 1 11)) (Coin (Position 13 6)) (Coin (Position 12 14)))
                     (prev coins)))
  (= hero (initnext (Hero startSpot) (prev hero)))
  (= pips (initnext (list) (map (--> i (Pip (Position i 0))) (range 0 score))))

  (= solidAt (--> q (| (in q fixedSolid) (== q (.. brick origin)))))
  (= heroAt (--> (sx sy) (Position (+ (.. (.. hero origin) x) sx) (+ (.. (.. hero origin) y) sy))))
  (= grounded (--> () (solidAt (heroAt 0 1))))
  (= walk (--> sx
    (let (= aim (heroAt sx 0))
         (if (& (& (>= (.. aim x) 0) (< (.. aim x) 16)) (! (solidAt aim)))
          then (= hero (updateObj hero "origin" aim)) else hero))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on left (walk -1))
  (on right (walk 1))
  (on (& up ((grounded)))
    (= lift (if (== (heroAt 0 1) springSpot) then 8 else 3)))
  (on (& clicked (& (! (solidAt click)) (& (!= click (.. hero origin))
          (& (! (any (--> c (== (.. c origin) click)) coins))
             (& (& (>= (.. click y) 1) (< (.. click y) 15)) (& (>= (.. click x) 0) (< (.. click x) 16)))))))
    (= brick (Brick click)))

  ; vertical motion after walking: rise while lift lasts, otherwise fall one cell
  (on true
    (let (= above (heroAt 0 -1))
         (if (> lift 0)
          then (if (& (>= (.. above y) 1) (! (solidAt above)))
                then (let (= hero (updateObj hero "origin" above)) (= lift (- lift 1)))
                else (= lift 0))
          else (if ((grounded)) then hero else (= hero (updateObj hero "origin" (if (& changed (! (solidAt (heroAt 0 2)))) then (heroAt 0 2) else (heroAt 0 1))))))))
  (on true
    (let (= got (filter (--> c (== (.. c origin) (.. hero origin))) coins))
         (if (> (length got) 0)
          then (let (= coins (removeObj coins (--> c (== (.. c origin) (.. hero origin)))))
                    (= score (+ score (length got))))
          else score)))
  (on (& (< score 3) (in (heroAt 0 1) lavaSpots))
    (let (= hero (Hero startSpot)) (= lift 0) (= deaths (+ deaths 1)))))
