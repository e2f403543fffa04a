; patrol: a side-view platform level. Arrows walk the white player left/right; up jumps
; (two cells up, then it falls) when it stands on something. A cyan raft shuttles across
; the lava pit on the bottom row and a cyan lift rides up and down on the right; the
; player standing on either is carried along. A red guard patrols the upper ledge back
; and forth; touching it, or falling into the lava, sends the player back to the start.
; Reaching the gold gem at the far end of the ledge collects it (a gold pip on the top
; row) and a new gem appears back by the pit. A click on a platform or on the guard turns
; it round.
(program
  (= GRID_SIZE 16)

  (object Player (Cell 0 0 "white"))
  (object Guard (: dir Int) (Cell 0 0 "red"))
  (object Raft (: dir Int) (list (Cell 0 0 "cyan") (Cell 1 0 "cyan")))
  (object Lift (: dir Int) (list (Cell 0 0 "cyan") (Cell 1 0 "cyan")))
  (object Rock (Cell 0 0 "gray"))
  (object Lava (Cell 0 0 "orange"))
  (object Gem (Cell 0 0 "gold"))
  (object Pip (Cell 0 0 "gold"))

  (= rockSpots (concat (list
    (map (--> i (Position i 15)) (range 0 4))
    (map (--> i (Position i 15)) (range 12 16))
    (map (--> i (Position i 8)) (range 3 14)))))
  (= lavaSpots (map (--> i (Position i 15)) (range 4 12)))
  (= rocks (map (--> q (Rock q)) rockSpots))
  (= gemSpots (list (Position 3 7) (Position 13 14)))
  (= start (Position 1 14))

  (= shiftBy (--> (q sx sy) (Position (+ (.. q x) sx) (+ (.. q y) sy))))
  (= padOf (--> pl (list (.. pl origin) (shiftBy (.. pl origin) 1 0))))
  ; a platform steps in its direction between lo and hi (its left/top cell), turning at the ends
  (= shuttle (--> (pl lo hi horiz)
    (let (= plAt (if horiz then (.. (.. pl origin) x) else (.. (.. pl origin) y)))
         (= plDir (if (& (>= (+ plAt (.. pl dir)) lo) (<= (+ plAt (.. pl dir)) hi)) then (.. pl dir) else (- (.. pl dir))))
         (updateObj (updateObj pl "dir" plDir) "origin"
                    (if horiz then (shiftBy (.. pl origin) plDir 0) else (shiftBy (.. pl origin) 0 plDir))))))
  (= solidAt (--> (q pads) (| (in q rockSpots) (in q pads))))
  (= insideAt (--> q (& (>= (.. q x) 0) (& (< (.. q x) 16) (& (>= (.. q y) 0) (< (.. q y) 16))))))
  (= openAt (--> (q pads) (& (insideAt q) (! (solidAt q pads)))))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= resets (initnext 0 (prev resets)))
  (= gems (initnext 0 (prev gems)))
  (= jumps (initnext 0 (prev jumps)))
  (= rise (initnext 0 (prev rise)))
  (= aloft (initnext 0 (prev aloft)))
  (= lavas (initnext (map (--> q (Lava q)) lavaSpots) (prev lavas)))
  (= raft (initnext (Raft 1 (Position 4 15)) (prev raft)))
  (= lift (initnext (Lift -1 (Position 14 14)) (prev lift)))
  (= guard (initnext (Guard -1 (Position 12 7)) (prev guard)))
  (= gem (initnext (Gem (head gemSpots)) (prev gem)))
  (= player (initnext (Player start) (prev player)))
  (= pips (initnext (list) (map (--> i (Pip (Position (- 15 i) 0))) (range 0 (min gems 8)))))

  ; clicks turn a platform or the guard round
  (on (clicked raft) (= raft (updateObj raft "dir" (- (.. raft dir)))))
  (on (clicked lift) (= lift (updateObj lift "dir" (- (.. lift dir)))))
  (on (clicked guard) (= guard (updateObj guard "dir" (- (.. guard dir)))))

  (on true
    (let (= oldPads (concat (list (padOf raft) (padOf lift))))
         (= here (.. player origin))
         ; platforms move (the raft every tick, the lift every tick); a rider is carried
         (= newRaft (shuttle raft 4 10 true))
         (= newLift (shuttle lift 8 14 false))
         (= pads (concat (list (padOf newRaft) (padOf newLift))))
         (= carry (if (in (shiftBy here 0 1) (padOf raft)) then (deltaPos (.. raft origin) (.. newRaft origin))
                   else (if (in (shiftBy here 0 1) (padOf lift)) then (deltaPos (.. lift origin) (.. newLift origin))
                   else (Position 0 0))))
         (= here (if (openAt (shiftBy here (.. carry x) (.. carry y)) pads) then (shiftBy here (.. carry x) (.. carry y)) else here))
         ; a platform that would run into the player stays put for this tick
         (= raft (if (in here (padOf newRaft)) then raft else newRaft))
         (= lift (if (in here (padOf newLift)) then lift else newLift))
         (= pads (concat (list (padOf raft) (padOf lift))))
         ; walking
         (= here (if (& ((left)) (openAt (shiftBy here -1 0) pads)) then (shiftBy here -1 0) else here))
         (= here (if (& ((right)) (openAt (shiftBy here 1 0) pads)) then (shiftBy here 1 0) else here))
         ; jumping and falling
         (= standing (solidAt (shiftBy here 0 1) pads))
         (if (& ((up)) (& standing (== rise 0))) then (let (= rise 2) (= jumps (+ jumps 1))) else rise)
         (if (& (> rise 0) (openAt (shiftBy here 0 -1) pads))
          then (let (= here (shiftBy here 0 -1)) (= rise (- rise 1)))
          else (let (= rise 0)
                    (if (& (! standing) (& (< (.. here y) 15) (openAt (shiftBy here 0 1) pads)))
                     then (= here (shiftBy here 0 1)) else here)))
         ; the guard steps every other tick, turning at the ledge ends
         (= guard (if (== (% clock 2) 0) then (shuttle guard 4 12 true) else guard))
         ; the guard or the lava sends the player back to the start
         (if (| (== here (.. guard origin)) (| (& (== here (.. (prev guard) origin)) (== (.. guard origin) (.. player origin)))
                                               (in here lavaSpots)))
          then (let (= here start) (= rise 0) (= resets (+ resets 1)))
          else here)
         (if (== here (.. gem origin))
          then (let (= gems (+ gems 1))
                    (= gem (Gem (if (== (.. gem origin) (head gemSpots)) then (tail gemSpots) else (head gemSpots)))))
          else gems)
         (= aloft (if (< (.. here y) 8) then (+ aloft 1) else aloft))
         (= player (updateObj player "origin" here)))))
