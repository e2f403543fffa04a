; Pushing puzzle: arrows walk the pusher; walking into a crate pushes it with
; moveNoCollision, so walls and other crates stop it. Crates turn green on a goal
; spot. A click on a free cell moves the pusher there; a click on a wall resets
; the level.
(program
  (= GRID_SIZE 16)

  (object Pusher (Cell 0 0 "white"))
  (object Crate (: placed Bool) (Cell 0 0 (if placed then "green" else "brown")))
  (object Block (Cell 0 0 "darkgray"))

  (= blocks (concat (list
    (map (--> bx (Block (Position bx 0))) (range 0 16))
    (map (--> bx (Block (Position bx 15))) (range 0 16))
    (map (--> by (Block (Position 0 by))) (range 1 15))
    (map (--> by (Block (Position 15 by))) (range 1 15))
    (map (--> bx (Block (Position bx 7))) (range 4 12))
    (list (Block (Position 4 4)) (Block (Position 11 11)) (Block (Position 7 10))))))

  (= goalSpots (list (Position 2 12) (Position 13 2) (Position 8 3) (Position 5 12)))
  (= startCrates (--> ()
    (list (Crate false (Position 5 5)) (Crate false (Position 9 4)) (Crate false (Position 6 10))
          (Crate false (Position 10 12)) (Crate false (Position 3 9)))))

  (= shove (--> (dx dy)
    (let (= aim (Position (+ (.. (.. pusher origin) x) dx) (+ (.. (.. pusher origin) y) dy)))
         (= hit (filter (--> c (== (.. c origin) aim)) crates))
         (if (== (length hit) 0)
          then (if (isFreePos aim) then (= pusher (updateObj pusher "origin" aim)) else pusher)
          else (let (= pushed (moveNoCollision (head hit) dx dy))
                    (if (== (.. pushed origin) (.. (head hit) origin)) then pusher
                     else (let (= crates (map (--> c (if (== (.. c origin) aim) then pushed else c)) crates))
                               (= pusher (updateObj pusher "origin" aim)))))))))

  (= pusher (initnext (Pusher (Position 2 2)) (prev pusher)))
  (= crates (initnext ((startCrates))
    (map (--> c (updateObj c "placed" (in (.. c origin) goalSpots))) (prev crates))))

  (on left (shove -1 0))
  (on right (shove 1 0))
  (on up (shove 0 -1))
  (on down (shove 0 1))
  (on (& clicked (isFreePos click)) (= pusher (updateObj pusher "origin" click)))
  (on (clicked blocks) (let (= crates ((startCrates))) (= pusher (Pusher (Position 2 2))))))
