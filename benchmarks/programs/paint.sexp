; Painting: a click paints the clicked cell in the current colour (the swatch in
; the top-left corner); up/down cycle the colour mode, whose last mode is an
; eraser; left/right scroll the whole canvas one column, wrapping around.
(program
  (= GRID_SIZE 16)

  (object Dab (: shade String) (Cell 0 0 shade))
  (object Swatch (: tint String) (Cell 0 0 tint))

  (= palette (list "red" "orange" "yellow" "green" "blue" "purple" "white" "black"))

  (= paintAt (--> spot
    (let (= kept (removeObj dabs (--> d (== (.. d origin) spot))))
         (if (== (at palette mode) "black") then kept
          else (addObj kept (Dab (at palette mode) spot))))))

  (= scroll (--> shift
    (map (--> d (updateObj d "origin"
                  (Position (% (+ (.. (.. d origin) x) shift) 16) (.. (.. d origin) y))))
         dabs)))

  (= mode (initnext 0 (prev mode)))
  (= dabs (initnext (list) (prev dabs)))
  (= swatch (initnext (Swatch "red" (Position 0 0)) (updateObj (prev swatch) "tint" (at palette mode))))

  (on up (= mode (% (+ mode 1) 8)))
  (on down (= mode (% (+ mode 7) 8)))
  (on left (= dabs (scroll 15)))
  (on right (= dabs (scroll 1)))
  (on clicked (= dabs (paintAt click))))
