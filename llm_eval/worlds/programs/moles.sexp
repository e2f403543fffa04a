; moles: a 10x10 whack-a-mole. Nine dark-gray holes sit in a 3x3 pattern. Every tick a
; brown mole may pop up at a random free hole (two chances in five, at most three moles up)
; and stays up for 3, 4 or 5 ticks (chosen at random) before it ducks back. A click on a
; visible mole whacks it: it turns into a yellow star for two ticks and the tally on the top
; row grows by a gold cell (up to ten cells). A click on a hole without a mole is a miss: a
; red cell on the bottom row, from the right. Arrows move a white mallet; stepping onto a
; mole whacks it too (an orange tally cell), and no mole pops up under the mallet.
(program
  (= GRID_SIZE 10)

  (object Mole (: left Int) (Cell 0 0 "brown"))
  (object Star (: left Int) (Cell 0 0 "yellow"))
  (object Hole (Cell 0 0 "darkgray"))
  (object Mallet (Cell 0 0 "white"))
  (object Mark (: hue String) (Cell 0 0 hue))

  (= holeSpots (list (Position 2 2) (Position 5 2) (Position 8 2)
                     (Position 2 5) (Position 5 5) (Position 8 5)
                     (Position 2 8) (Position 5 8) (Position 8 8)))
  (= spawnOdds (list true false false true false))
  (= stayTimes (list 3 4 5))

  (= holes (initnext (map (--> q (Hole q)) holeSpots) (prev holes)))
  (= mallet (initnext (Mallet (Position 0 5)) (prev mallet)))
  (= score (initnext 0 (prev score)))
  (= misses (initnext 0 (prev misses)))
  (= moles (initnext (list) (prev moles)))
  (= stars (initnext (list) (prev stars)))
  (= tally (initnext (list) (prev tally)))
  (= missBar (initnext (list) (prev missBar)))

  (= moleAt (--> (ms q) (any (--> m (== (.. m origin) q)) ms)))
  (= whack (--> (q hue)
    (let (= moles (removeObj moles (--> m (== (.. m origin) q))))
         (= stars (addObj stars (Star 3 q)))
         (= tally (if (< score 10) then (addObj tally (Mark hue (Position score 0))) else tally))
         (= score (+ score 1)))))
  (= inBoard (--> q (& (& (>= (.. q x) 0) (< (.. q x) 10)) (& (>= (.. q y) 1) (< (.. q y) 9)))))
  (= stride (--> q
    (if (inBoard q)
     then (let (= mallet (updateObj mallet "origin" q))
               (if (moleAt moles q) then (whack q "orange") else score))
     else mallet)))

  (on clicked
    (if (moleAt moles click) then (whack click "gold")
     else (if (in click holeSpots) then (= misses (+ misses 1)) else misses)))
  (on left (stride (Position (- (.. (.. mallet origin) x) 1) (.. (.. mallet origin) y))))
  (on right (stride (Position (+ (.. (.. mallet origin) x) 1) (.. (.. mallet origin) y))))
  (on up (stride (Position (.. (.. mallet origin) x) (- (.. (.. mallet origin) y) 1))))
  (on down (stride (Position (.. (.. mallet origin) x) (+ (.. (.. mallet origin) y) 1))))

  ; time: moles and stars count down and go; maybe a new mole at a hole that was free
  ; (no mole or star, not under the mallet) at the start of the tick
  (on true
    (let (= freeHoles (filter (--> q (& (! (moleAt (prev moles) q))
                                      (& (! (moleAt (prev stars) q)) (!= q (.. mallet origin)))))
                              holeSpots))
         (= moles (updateObj (removeObj moles (--> m (<= (.. m left) 1)))
                             (--> m (updateObj m "left" (- (.. m left) 1)))))
         (= stars (updateObj (removeObj stars (--> s (<= (.. s left) 1)))
                             (--> s (updateObj s "left" (- (.. s left) 1)))))
         (= moles (if (& (uniformChoice spawnOdds)
                         (& (< (length moles) 3) (> (length freeHoles) 0)))
                   then (addObj moles (Mole (uniformChoice stayTimes) (uniformChoice freeHoles)))
                   else moles))
         (= missBar (map (--> i (Mark "red" (Position (- 9 i) 9))) (range 0 (min misses 10)))))))
