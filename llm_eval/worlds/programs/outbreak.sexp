; outbreak: a village of randomly placed people (green). A sick person (red) coughs every
; tick in one random direction, three times as likely downwind as in any other direction,
; and makes the neighbour there sick if it is healthy. After 6 ticks the sick recover
; (gray, immune). When nobody is sick a new case appears at random. Arrows set the wind
; (yellow vane around the white hub at (10,1)); a click on a healthy person vaccinates it
; (blue, immune) while doses last (white pips on row 0).
(program
  (= GRID_SIZE 14)

  (object Person (: health Int) (: timer Int)
    (Cell 0 0 (if (== health 0) then "green" else (if (== health 1) then "red" else (if (== health 2) then "gray" else "blue")))))
  (object Vane (: wx Int) (: wy Int) (list (Cell 0 0 "white") (Cell wx wy "yellow")))
  (object Dose (Cell 0 0 "white"))

  ; health: 0 healthy, 1 sick, 2 recovered, 3 vaccinated
  (= spots (filter (--> q (== (uniformChoice (list 0 1 1)) 1)) (rect (Position 0 3) (Position 14 14))))
  (= firstCase (uniformChoice spots))
  (= compass (list (Position -1 0) (Position 1 0) (Position 0 -1) (Position 0 1)))

  (= wind (initnext (Position 1 0) (prev wind)))
  (= doses (initnext 6 (prev doses)))
  (= cases (initnext 1 (prev cases)))
  (= quiet (initnext 0 (prev quiet)))
  (= people (initnext (map (--> q (Person (if (== q firstCase) then 1 else 0) 0 q)) spots) (prev people)))
  (= vane (initnext (Vane 1 0 (Position 10 1)) (Vane (.. wind x) (.. wind y) (Position 10 1))))
  (= pips (initnext (list) (map (--> i (Dose (Position i 0))) (range 0 doses))))

  (= sickOnes (--> ps (filter (--> pp (== (.. pp health) 1)) ps)))
  (= cough (--> pp (movePos (.. pp origin) (uniformChoice (list wind wind wind (at compass 0) (at compass 1) (at compass 2) (at compass 3))))))
  (= age (--> pp
    (if (== (.. pp health) 1)
     then (if (>= (.. pp timer) 5) then (Person 2 0 (.. pp origin)) else (updateObj pp "timer" (+ (.. pp timer) 1)))
     else pp)))
  (= catchAt (--> (hits pp)
    (if (& (== (.. pp health) 0) (in (.. pp origin) hits)) then (Person 1 0 (.. pp origin)) else pp)))
  (= spark (--> ps
    (if (< quiet 3) then ps
     else (let (= healthy (filter (--> pp (== (.. pp health) 0)) ps))
               (if (== (length healthy) 0) then ps
                else (let (= unlucky (.. (uniformChoice healthy) origin))
                          (map (--> pp (if (== (.. pp origin) unlucky) then (Person 1 0 unlucky) else pp)) ps)))))))

  (on left (= wind (Position -1 0)))
  (on right (= wind (Position 1 0)))
  (on up (= wind (Position 0 -1)))
  (on down (= wind (Position 0 1)))
  (on (& (> doses 0) (clicked (filter (--> pp (== (.. pp health) 0)) people)))
    (let (= people (map (--> pp (if (== (.. pp origin) click) then (Person 3 0 click) else pp)) people))
         (= doses (- doses 1))))
  (on true
    (let (= hits (map cough (sickOnes people)))
         (= fresh (if (== (length hits) 0) then 0
                   else (length (filter (--> pp (& (== (.. pp health) 0) (in (.. pp origin) hits))) people))))
         (= people (if (== (length hits) 0) then people else (map (--> pp (catchAt hits (age pp))) people)))
         (= cases (+ cases fresh))
         (= quiet (if (== (length hits) 0) then (+ quiet 1) else 0))
         (= people (spark people)))))
