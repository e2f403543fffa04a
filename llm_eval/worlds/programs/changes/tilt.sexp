; CHANGED PROGRAM (change detection): gravity pulls twice as hard (adds 2 to the velocity per tick instead of 1), once the trigger has held.
; tilt: a walled 16x16 box with ledges and three balls (red, green, blue). Gravity points one
; way at a time: four buttons in the middle of the four walls (yellow: the active one,
; orange: the others) switch it to point at the clicked wall. All balls share ONE velocity
; (vx, vy), at most 2 cells per tick each way: every tick gravity adds 1 towards its wall and
; an arrow key kicks it by 2 that way; then each ball moves vx cells sideways and vy cells up
; or down, one cell at a time, stopping at walls and at other balls. The velocity persists
; from tick to tick (no friction): a component is lost only when no ball at all could move
; that way in the tick. So after a kick the balls keep sliding, and after the gravity
; switches the balls first slow down before they turn round.
(program
  (= GRID_SIZE 16)

  (object Ball (: tint String) (Cell 0 0 tint))
  (object Button (: bx Int) (: by Int) (: lit Bool) (Cell 0 0 (if lit then "yellow" else "orange")))
  (object Walls (: spots (List Position)) (map (--> q (Cell (.. q x) (.. q y) "gray")) spots))

  (= buttonSpots (list (Position 8 0) (Position 8 15) (Position 0 8) (Position 15 8)))
  (= solidAt (--> (cx cy)
    (| (| (| (<= cx 0) (>= cx 15)) (| (<= cy 0) (>= cy 15)))
       (| (| (& (== cy 5) (<= cx 6)) (& (== cy 10) (>= cx 9)))
          (| (& (== cx 8) (<= cy 3)) (& (== cx 4) (>= cy 12)))))))
  (= wallSpots (filter (--> q (& (solidAt (.. q x) (.. q y)) (! (in q buttonSpots)))) (allPositions 16)))
  (= walls (Walls wallSpots (Position 0 0)))

  (= clamp2 (--> n (max -2 (min 2 n))))
  (= taken (--> (cx cy bs) (any (--> b (& (== (.. (.. b origin) x) cx) (== (.. (.. b origin) y) cy))) bs)))
  ; one unit step of every ball by (dx, dy): a ball moves unless a wall or a ball that does
  ; not move is in the way (chains resolved in three rounds)
  (= freeOf (--> (b dx dy) (! (solidAt (+ (.. (.. b origin) x) dx) (+ (.. (.. b origin) y) dy)))))
  (= blockedBy (--> (b dx dy stuck) (taken (+ (.. (.. b origin) x) dx) (+ (.. (.. b origin) y) dy) stuck)))
  (= settle (--> (bs dx dy)
    (let (= stuck0 (filter (--> b (! (freeOf b dx dy))) bs))
         (= stuck1 (filter (--> b (| (! (freeOf b dx dy)) (blockedBy b dx dy stuck0))) bs))
         (= stuck2 (filter (--> b (| (! (freeOf b dx dy)) (blockedBy b dx dy stuck1))) bs))
         (filter (--> b (| (! (freeOf b dx dy)) (blockedBy b dx dy stuck2))) bs))))
  (= unit (--> (bs dx dy)
    (let (= still (settle bs dx dy))
         (map (--> b (if (taken (.. (.. b origin) x) (.. (.. b origin) y) still) then b
                      else (updateObj b "origin" (Position (+ (.. (.. b origin) x) dx) (+ (.. (.. b origin) y) dy)))))
              bs))))
  (= repeatUnit (--> (bs n dx dy) (if (<= n 0) then bs else (repeatUnit (unit bs dx dy) (- n 1) dx dy))))
  (= sign0 (--> n (if (> n 0) then 1 else (if (< n 0) then -1 else 0))))

  (= grav (initnext (Position 0 1) (prev grav)))
  (= vel (initnext (Position 0 0) (prev vel)))
  (= switches (initnext 0 (prev switches)))
  (= kicks (initnext 0 (prev kicks)))
  (= buttons (initnext (map (--> q (Button (.. q x) (.. q y) (== q (Position 8 15)) q)) buttonSpots)
                       (map (--> bt (updateObj bt "lit" (== (dirOf bt) grav))) (prev buttons))))
  (= balls (initnext (list (Ball "red" (Position 2 4)) (Ball "green" (Position 12 9)) (Ball "blue" (Position 6 14)))
                     (prev balls)))

  (= dirOf (--> bt (Position (if (== (.. bt bx) 0) then -1 else (if (== (.. bt bx) 15) then 1 else 0))
                             (if (== (.. bt by) 0) then -1 else (if (== (.. bt by) 15) then 1 else 0)))))

  ; a click on a button points gravity at its wall
  (on (clicked buttons)
    (let (= hit (head (filter (--> bt (== (.. bt origin) click)) buttons)))
         (if (!= (dirOf hit) grav) then (let (= grav (dirOf hit)) (= switches (+ switches 1))) else grav)))

  ; physics: gravity and kicks change the shared velocity, balls move, a component no ball
  ; could follow is lost
  (on true
    (let (= kx (if ((left)) then -2 else (if ((right)) then 2 else 0)))
         (= ky (if ((up)) then -2 else (if ((down)) then 2 else 0)))
         (= kicks (if (| (!= kx 0) (!= ky 0)) then (+ kicks 1) else kicks))
         (= nvx (clamp2 (+ (+ (.. vel x) (* (if changed then 2 else 1) (.. grav x))) kx)))
         (= nvy (clamp2 (+ (+ (.. vel y) (* (if changed then 2 else 1) (.. grav y))) ky)))
         (= across (repeatUnit balls (abs nvx) (sign0 nvx) 0))
         (= movedX (any (--> i (!= (.. (at across i) origin) (.. (at balls i) origin))) (range 0 3)))
         (= downs (repeatUnit across (abs nvy) 0 (sign0 nvy)))
         (= movedY (any (--> i (!= (.. (at downs i) origin) (.. (at across i) origin))) (range 0 3)))
         (= vel (Position (if movedX then nvx else 0) (if movedY then nvy else 0)))
         (= balls downs)))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true)))
