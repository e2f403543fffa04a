; CHANGED PROGRAM (change detection): red and blue mix to pink instead of purple, once the trigger has held.
; easel: a 10x10 painting world. The bottom row holds five swatches (red, yellow, blue,
; white, gray eraser), a brush-mode lamp and the current-colour lamp. A click on the canvas
; paints with the current colour and brush (dot, cross or whole row). Paint mixes: a primary
; over another primary gives orange/purple/green, a primary over a mix gives brown.
; left/right cycle the colour, up/down cycle the brush, clicking a swatch picks it.
(program
  (= GRID_SIZE 10)

  (object Dab (: tint String) (Cell 0 0 tint))
  (object Swatch (: hue String) (Cell 0 0 hue))
  (object Lamp (: ink String) (: shapeHue String) (list (Cell 0 0 shapeHue) (Cell 2 0 ink)))

  (= palette (list "red" "yellow" "blue" "white" "gray"))
  (= brushHues (list "white" "cyan" "magenta"))
  (= swatches (map (--> i (Swatch (at palette i) (Position i 9))) (range 0 5)))

  (= primary (--> c (in c (list "red" "yellow" "blue"))))
  (= mixed (--> c (in c (list "orange" "purple" "green" "brown"))))
  (= pairIs (--> (a b u v) (| (& (== a u) (== b v)) (& (== a v) (== b u)))))
  ; colour of a cell painted with `fresh` over `old`
  (= mixOf (--> (old fresh)
    (if (| (== old fresh) (! (primary fresh))) then fresh
     else (if (pairIs old fresh "red" "yellow") then "orange"
     else (if (pairIs old fresh "red" "blue") then (if changed then "pink" else "purple")
     else (if (pairIs old fresh "yellow" "blue") then "green"
     else (if (mixed old) then "brown" else fresh)))))))

  (= onCanvas (--> q (& (& (>= (.. q x) 0) (< (.. q x) 10)) (& (>= (.. q y) 0) (< (.. q y) 9)))))
  (= brushSpots (--> q
    (filter onCanvas
      (if (== brush 0) then (list q)
       else (if (== brush 1) then (list q (Position (- (.. q x) 1) (.. q y)) (Position (+ (.. q x) 1) (.. q y))
                                       (Position (.. q x) (- (.. q y) 1)) (Position (.. q x) (+ (.. q y) 1)))
       else (map (--> cx (Position cx (.. q y))) (range 0 10)))))))

  (= paintOne (--> (ds q)
    (let (= under (filter (--> d (== (.. d origin) q)) ds))
         (= rest (removeObj ds (--> d (== (.. d origin) q))))
         (= fresh (at palette tone))
         (if (== fresh "gray") then rest
          else (addObj rest (Dab (if (== (length under) 0) then fresh
                                  else (mixOf (.. (head under) tint) fresh)) q))))))

  (= tone (initnext 0 (prev tone)))
  (= brush (initnext 0 (prev brush)))
  (= strokes (initnext 0 (prev strokes)))
  (= dabs (initnext (list) (prev dabs)))
  (= lamp (initnext (Lamp "red" "white" (Position 7 9))
    (Lamp (at palette tone) (at brushHues brush) (Position 7 9))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on left (= tone (% (+ tone 4) 5)))
  (on right (= tone (% (+ tone 1) 5)))
  (on up (= brush (% (+ brush 1) 3)))
  (on down (= brush (% (+ brush 2) 3)))
  (on (clicked swatches) (= tone (.. click x)))
  (on (& clicked (onCanvas click))
    (let (= dabs (foldl paintOne dabs (brushSpots click)))
         (= strokes (+ strokes 1)))))
