; CHANGED PROGRAM (change detection): the edges stop wrapping: cells outside the row count as dead, once the trigger has held.
; automaton: a one-dimensional cellular automaton on a 25x25 board. Row 1 is the current
; generation (25 cells, wrapping at the edges); every tick a new generation is computed
; from it and the older ones scroll down (24 rows of history), drawn in the colour of the
; rule that made them. Row 0 holds four rule swatches (30 orange, 90 cyan, 110 limegreen,
; 184 magenta), the current-rule lamp at x=22 and the run lamp at x=24 (green/red).
; left/right cycle the rule, a click on a swatch picks it, up pauses/resumes, down resets
; the current generation to a single cell, a click on row 1 toggles a cell. Time does not
; pass on ticks with a click.
(program
  (= GRID_SIZE 25)

  (object Gen (: hue String) (: live (List Int)) (map (--> i (Cell i 0 hue)) live))
  (object Lamp (: shade String) (Cell 0 0 shade))

  (= ruleHues (list "orange" "cyan" "limegreen" "magenta"))
  ; new state for the neighbourhood index 4*left + 2*centre + right, per rule
  (= ruleTables (list (list 0 1 1 1 1 0 0 0) (list 0 1 0 1 1 0 1 0)
                      (list 0 1 1 1 0 1 1 0) (list 0 0 0 1 1 1 0 1)))
  (= swatches (map (--> k (Lamp (at ruleHues k) (Position k 0))) (range 0 4)))
  (= seedBits (map (--> i (if (== i 12) then 1 else 0)) (range 0 25)))

  (= liveOf (--> bs (filter (--> i (== (at bs i) 1)) (range 0 25))))
  (= evolve (--> bs
    (let (= table (at ruleTables rule))
         (map (--> i (at table (+ (* 4 (if (& changed (== i 0)) then 0 else (at bs (% (+ i 24) 25))))
                                  (+ (* 2 (at bs i)) (if (& changed (== i 24)) then 0 else (at bs (% (+ i 1) 25)))))))
              (range 0 25)))))
  (= scrolled (--> rs
    (map (--> r (moveDown r)) (filter (--> r (< (.. (.. r origin) y) 24)) rs))))
  (= withTop (--> (rs bs)
    (addObj (removeObj rs (--> r (== (.. (.. r origin) y) 1)))
            (Gen (at ruleHues rule) (liveOf bs) (Position 0 1)))))

  (= rule (initnext 1 (prev rule)))
  (= running (initnext true (prev running)))
  (= gen (initnext 0 (prev gen)))
  (= bits (initnext seedBits (prev bits)))
  (= rows (initnext (list (Gen "cyan" (list 12) (Position 0 1))) (prev rows)))
  (= lamps (initnext (list (Lamp "cyan" (Position 22 0)) (Lamp "green" (Position 24 0)))
    (list (Lamp (at ruleHues rule) (Position 22 0))
          (Lamp (if running then "green" else "red") (Position 24 0)))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on left (= rule (% (+ rule 3) 4)))
  (on right (= rule (% (+ rule 1) 4)))
  (on up (= running (! running)))
  (on down (let (= bits seedBits) (= rows (withTop rows seedBits))))
  (on (clicked swatches) (= rule (.. click x)))
  (on (& clicked (& (== (.. click y) 1) (& (>= (.. click x) 0) (< (.. click x) 25))))
    (let (= bits (map (--> i (if (== i (.. click x)) then (- 1 (at bits i)) else (at bits i)))
                      (range 0 25)))
         (= rows (withTop rows bits))))
  (on (& running (! ((clicked))))
    (let (= bits (evolve bits))
         (= gen (+ gen 1))
         (= rows (withTop (addObj (scrolled rows) (Gen "black" (list) (Position 0 1))) bits)))))
