; billiards: a 16x16 pool table (dark green felt, brown cushions, black pockets in the four
; corners and in the middle of the top and bottom cushions). The white cue ball and five
; coloured balls roll one cell per tick, straight or diagonally, keeping their momentum:
; a shot gives a ball a direction and a run of cells; each tick uses one cell of the run.
; A ball that meets a cushion bounces off it (mirror reflection). A ball that runs into
; another ball stops dead and hands its direction and the rest of its run to the ball it
; hit. A ball that reaches a pocket drops: a coloured ball stays visible in the pocket cell
; it fell into, the cue ball comes back to its spot once the table is still. left/right turn the aim (the light gray dot beside the cue ball, 8 directions); a
; click aims the cue ball at the clicked cell; up shoots hard (20 cells), down nudges it
; (2 cells). Aiming and shooting only work while every ball is at rest.
(program
  (= GRID_SIZE 16)
  (= background "darkgreen")

  (object Ball (: hue String) (: vx Int) (: vy Int) (: run Int) (Cell 0 0 hue))
  (object Rim (: shade String) (Cell 0 0 shade))
  (object Dot (Cell 0 0 "lightgray"))

  (= pocketSpots (list (Position 0 0) (Position 1 0) (Position 2 0) (Position 0 1) (Position 0 2)
                       (Position 15 0) (Position 14 0) (Position 13 0) (Position 15 1) (Position 15 2)
                       (Position 0 15) (Position 1 15) (Position 2 15) (Position 0 14) (Position 0 13)
                       (Position 15 15) (Position 14 15) (Position 13 15) (Position 15 14) (Position 15 13)
                       (Position 7 0) (Position 8 0) (Position 7 15) (Position 8 15)
                       (Position 0 7) (Position 0 8) (Position 15 7) (Position 15 8)))
  (= onBorder (--> q (| (| (== (.. q x) 0) (== (.. q x) 15)) (| (== (.. q y) 0) (== (.. q y) 15)))))
  (= borderSpots (filter onBorder (allPositions 16)))
  (= aims (list (Position 1 0) (Position 1 1) (Position 0 1) (Position -1 1)
                (Position -1 0) (Position -1 -1) (Position 0 -1) (Position 1 -1)))
  (= CUE_SPOT (Position 4 10))
  (= spareSpots (list (Position 4 10) (Position 4 12) (Position 4 4) (Position 3 10) (Position 5 10)))

  (= plus (--> (q sx sy) (Position (+ (.. q x) sx) (+ (.. q y) sy))))
  (= sgn (--> v (if (> v 0) then 1 else (if (< v 0) then -1 else 0))))
  (= moving (--> b (> (.. b run) 0)))
  (= stillTable (--> () (! (any moving balls))))
  (= cueBall (--> () (filter (--> b (== (.. b hue) "white")) balls)))
  (= takenBy (--> (bs q) (any (--> o (== (.. o origin) q)) bs)))
  (= halt (--> b (updateObj (updateObj (updateObj b "vx" 0) "vy" 0) "run" 0)))

  ; a ball heading into a cushion: its direction mirrored, and the cell that takes it to
  (= ahead (--> b (plus (.. b origin) (.. b vx) (.. b vy))))
  (= flipX (--> b (if (| (== (.. (ahead b) x) 0) (== (.. (ahead b) x) 15)) then (- 0 (.. b vx)) else (.. b vx))))
  (= flipY (--> b (if (| (== (.. (ahead b) y) 0) (== (.. (ahead b) y) 15)) then (- 0 (.. b vy)) else (.. b vy))))
  (= bounceSpot (--> b (plus (.. b origin) (flipX b) (flipY b))))

  ; one tick of ball number i, given the balls already moved this tick (done)
  (= roll (--> (done i)
    (let (= b (at balls i))
         (= rest (map (--> j (at balls j)) (range (+ i 1) (length balls))))
         (= others (concat (list done rest)))
         (= p (.. b origin))
         (= t (plus p (.. b vx) (.. b vy)))
         (if (! (moving b)) then (addObj done b)
          else (if (in t pocketSpots) then (addObj done (updateObj (halt b) "origin" t))
          else (if (onBorder t)
                then (let (= bounced (updateObj (updateObj (updateObj b "vx" (flipX b)) "vy" (flipY b)) "run" (- (.. b run) 1)))
                          (= r (bounceSpot b))
                          (= bounces (+ bounces 1))
                          (addObj done (if (takenBy others r) then bounced else (updateObj bounced "origin" r))))
          else (if (takenBy others t)
                then (let (= kicks (concat (list kicks (list (list (.. (head (filter (--> o (== (.. o origin) t)) others)) hue)
                                                                   (.. b vx) (.. b vy) (- (.. b run) 1))))))
                          (= hits (+ hits 1))
                          (addObj done (halt b)))
          else (addObj done (updateObj (updateObj b "origin" t) "run" (- (.. b run) 1))))))))))
  (= kicked (--> b
    (let (= mine (filter (--> k (== (at k 0) (.. b hue))) kicks))
         (if (== (length mine) 0) then b
          else (let (= k (head mine))
                    (updateObj (updateObj (updateObj b "vx" (at k 1)) "vy" (at k 2)) "run" (at k 3)))))))

  (= rims (initnext (map (--> q (Rim (if (in q pocketSpots) then "black" else "brown") q)) borderSpots)
                    (prev rims)))
  (= shots (initnext 0 (prev shots)))
  (= hits (initnext 0 (prev hits)))
  (= bounces (initnext 0 (prev bounces)))
  (= scratches (initnext 0 (prev scratches)))
  (= kicks (initnext (list) (list)))
  (= aimAt (initnext 0 (prev aimAt)))
  (= tray (initnext (list) (prev tray)))
  (= sight (initnext (list (Dot (Position 5 10))) (prev sight)))
  (= balls (initnext (list (Ball "white" 0 0 0 CUE_SPOT)
                           (Ball "red" 0 0 0 (Position 9 10))
                           (Ball "yellow" 0 0 0 (Position 10 9))
                           (Ball "blue" 0 0 0 (Position 10 11))
                           (Ball "orange" 0 0 0 (Position 11 8))
                           (Ball "purple" 0 0 0 (Position 11 12)))
                     (prev balls)))

  (on (& left ((stillTable))) (= aimAt (% (+ aimAt 7) 8)))
  (on (& right ((stillTable))) (= aimAt (% (+ aimAt 1) 8)))
  (on (& clicked (& ((stillTable)) (> (length ((cueBall))) 0)))
    (let (= from (.. (head ((cueBall))) origin))
         (= want (Position (sgn (- (.. click x) (.. from x))) (sgn (- (.. click y) (.. from y)))))
         (if (in want aims)
          then (= aimAt (head (filter (--> k (== (at aims k) want)) (range 0 8))))
          else aimAt)))
  (on (& (| up down) (& ((stillTable)) (> (length ((cueBall))) 0)))
    (let (= shots (+ shots 1))
         (= balls (map (--> b (if (== (.. b hue) "white")
                               then (updateObj (updateObj (updateObj b "vx" (.. (at aims aimAt) x))
                                                          "vy" (.. (at aims aimAt) y))
                                               "run" (if ((up)) then 20 else 2))
                               else b)) balls))))

  (on true
    (let (= kicks (list))
         (= rolled (foldl roll (list) (range 0 (length balls))))
         (= sunk (filter (--> b (in (.. b origin) pocketSpots)) rolled))
         (= gone (filter (--> b (!= (.. b hue) "white")) sunk))
         (= tray (addObj tray gone))
         (= scratches (+ scratches (length (filter (--> b (== (.. b hue) "white")) sunk))))
         (= balls (map kicked (removeObj rolled (--> b (in (.. b origin) pocketSpots)))))
         (= free (filter (--> q (! (takenBy balls q))) spareSpots))
         (= balls (if (& ((stillTable)) (& (== (length ((cueBall))) 0) (> (length free) 0)))
                   then (addObj balls (Ball "white" 0 0 0 (head free))) else balls))
         (= sight (if (& ((stillTable)) (> (length ((cueBall))) 0))
                   then (list (Dot (plus (.. (head ((cueBall))) origin) (.. (at aims aimAt) x) (.. (at aims aimAt) y))))
                   else (list))))))
