; Breakout: a three-cell paddle on row 14 (left/right, or a click to jump to a
; column), a ball that bounces off the side walls, the ceiling, bricks and the
; paddle, and three rows of bricks that come back once all are gone.
; The paddle's outer cells send the ball left or right. A ball that gets past the
; paddle is served again from above the paddle.
(program
  (= GRID_SIZE 16)

  (object Paddle (list (Cell -1 0 "white") (Cell 0 0 "white") (Cell 1 0 "white")))
  (object Ball (: bvx Int) (: bvy Int) (Cell 0 0 "red"))
  (object Brick (: hue String) (Cell 0 0 hue))

  (= brickRow (--> (row hueName) (map (--> bx (Brick hueName (Position bx row))) (range 1 15))))
  (= makeBricks (--> ()
    (concat (list (brickRow 1 "crimson") (brickRow 2 "orange") (brickRow 3 "gold")))))

  ; velocity after bouncing off the walls and the ceiling
  (= wallVx (--> b
    (if (| (< (+ (.. (.. b origin) x) (.. b bvx)) 0) (> (+ (.. (.. b origin) x) (.. b bvx)) 15))
     then (- (.. b bvx)) else (.. b bvx))))
  (= wallVy (--> b (if (< (+ (.. (.. b origin) y) (.. b bvy)) 0) then 1 else (.. b bvy))))
  (= aimOf (--> b (Position (+ (.. (.. b origin) x) (wallVx b)) (+ (.. (.. b origin) y) (wallVy b)))))

  (= hitsBrick (--> b (any (--> k (== (.. k origin) (aimOf b))) (prev bricks))))
  (= hitsPaddle (--> b
    (& (== (.. (aimOf b) y) 14) (< (abs (- (.. (aimOf b) x) (.. (.. paddle origin) x))) 2))))

  ; off the paddle the ball goes left from its left cell, right from its right cell
  (= paddleVx (--> b
    (sign (+ (- (.. (aimOf b) x) (.. (.. paddle origin) x)) (wallVx b)))))

  (= stepBall (--> b
    (if (> (.. (.. b origin) y) 14) then (Ball 1 -1 (Position (.. (.. paddle origin) x) 13))
     else (if (hitsBrick b)
           then (updateObj (updateObj b "bvx" (wallVx b)) "bvy" (- (wallVy b)))
     else (if (hitsPaddle b)
           then (updateObj (updateObj b "bvx" (paddleVx b)) "bvy" -1)
           else (updateObj (updateObj (updateObj b "bvx" (wallVx b)) "bvy" (wallVy b))
                           "origin" (aimOf b)))))))

  (= refill (--> ks (if (== (length ks) 0) then ((makeBricks)) else ks)))

  (= paddle (initnext (Paddle (Position 7 14)) (prev paddle)))
  (= ball (initnext (Ball 1 -1 (Position 7 11)) (stepBall (prev ball))))
  (= bricks (initnext ((makeBricks))
    (refill (removeObj (prev bricks) (--> k (== (.. k origin) (aimOf (prev ball))))))))

  (on left (= paddle (if (> (.. (.. paddle origin) x) 1) then (moveLeft paddle) else paddle)))
  (on right (= paddle (if (< (.. (.. paddle origin) x) 14) then (moveRight paddle) else paddle)))
  (on clicked (= paddle (updateObj paddle "origin" (Position (max 1 (min 14 (.. click x))) 14)))))
