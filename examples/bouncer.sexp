; bouncer: a ball bounces around an 8x8 grid above a paddle.
; left/right move the paddle along the bottom row; up/down send the ball up or down;
; a click paints the clicked cell yellow. A ball that misses the paddle drops into the
; bottom row and comes back in from the top.
(program
  (= GRID_SIZE 8)
  (= background "black")

  (object Paint (Cell 0 0 "yellow"))
  (object Paddle (list (Cell 0 0 "white") (Cell 1 0 "white") (Cell 2 0 "white")))
  (object Ball (: dx Number) (: dy Number) (Cell 0 0 "red"))

  ; true when a ball at row `by` heading for column `nx` lands on the paddle
  (= onPaddle (--> (nx by pad)
    (& (== by (- GRID_SIZE 2))
       (& (>= nx (.. (.. pad origin) x)) (<= nx (+ (.. (.. pad origin) x) 2))))))

  ; one move of the ball: reverse at the walls and on the paddle, re-enter from the top
  (= moveBall (--> (b pad)
    (if (== (.. (.. b origin) y) (- GRID_SIZE 1))
      then (Ball (.. b dx) 1 (Position (.. (.. b origin) x) 0))
      else (let
        (= bx (.. (.. b origin) x))
        (= by (.. (.. b origin) y))
        (= ndx (if (| (< (+ bx (.. b dx)) 0) (> (+ bx (.. b dx)) (- GRID_SIZE 1)))
                 then (- (.. b dx)) else (.. b dx)))
        (= ndy (if (< (+ by (.. b dy)) 0) then 1
                 else (if (onPaddle (+ bx ndx) by pad) then -1 else (.. b dy))))
        (Ball ndx ndy (Position (+ bx ndx) (+ by ndy)))))))

  (= paints (initnext (list) (prev paints)))
  (= paddle (initnext (Paddle (Position 3 7)) (prev paddle)))
  (= ball (initnext (Ball 1 1 (Position 1 1)) (moveBall (prev ball) paddle)))

  (on left (= paddle (if (> (.. (.. paddle origin) x) 0)
                       then (moveLeft paddle) else paddle)))
  (on right (= paddle (if (< (.. (.. paddle origin) x) (- GRID_SIZE 3))
                        then (moveRight paddle) else paddle)))
  (on up (= ball (moveBall (Ball (.. ball dx) -1 (.. ball origin)) paddle)))
  (on down (= ball (moveBall (Ball (.. ball dx) 1 (.. ball origin)) paddle)))
  (on clicked (= paints (addObj paints (Paint click)))))
