; CHANGED PROGRAM (change detection): the sick recover after 3 ticks instead of 6, once the trigger has held.
; outbreak: a village of randomly placed people (green). A sick person (red) coughs every
; tick in one random direction, three times as likely downwind as in any other direction,
; and makes the neighbour there sick if it is healthy. After 6 ticks the sick recover
; (gray, immune). Every 30 ticks a new season makes all recovered people healthy again.
; When nobody has been sick for 3 ticks a random healthy person falls sick. Arrows set the
; wind (yellow vane around the white hub at (10,1)); a click on a healthy person
; vaccinates it (blue, immune for good) while doses last (white pips on row 0).
(program
  (= GRID_SIZE 14)

  (object Healthy (Cell 0 0 "green"))
  (object Sick (: timer Int) (Cell 0 0 "red"))
  (object Recovered (Cell 0 0 "gray"))
  (object Vaccinated (Cell 0 0 "blue"))
  (object Vane (: wx Int) (: wy Int) (list (Cell 0 0 "white") (Cell wx wy "yellow")))
  (object Dose (Cell 0 0 "white"))

  (= spots (filter (--> q (== (uniformChoice (list 0 1 1)) 1)) (rect (Position 0 3) (Position 14 14))))
  (= firstCase (uniformChoice spots))
  (= compass (list (Position -1 0) (Position 1 0) (Position 0 -1) (Position 0 1)))
  (= spotsOf (--> os (map (--> o (.. o origin)) os)))

  (= clock (initnext 0 (+ (prev clock) 1)))
  (= wind (initnext (Position 1 0) (prev wind)))
  (= doses (initnext 6 (prev doses)))
  (= cases (initnext 1 (prev cases)))
  (= quiet (initnext 0 (prev quiet)))
  (= healthy (initnext (map (--> q (Healthy q)) (filter (--> q (!= q firstCase)) spots)) (prev healthy)))
  (= sick (initnext (list (Sick 0 firstCase)) (prev sick)))
  (= recovered (initnext (list) (prev recovered)))
  (= vaccinated (initnext (list) (prev vaccinated)))
  (= vane (initnext (Vane 1 0 (Position 10 1)) (Vane (.. wind x) (.. wind y) (Position 10 1))))
  (= pips (initnext (map (--> i (Dose (Position i 0))) (range 0 6))
                    (map (--> i (Dose (Position i 0))) (range 0 doses))))

  (= cough (--> pp (movePos (.. pp origin)
    (uniformChoice (list wind wind wind (at compass 0) (at compass 1) (at compass 2) (at compass 3))))))

  ; change detection: `changed` latches the host's trigger (SpecialConditionTriggered is
  ; re-evaluated before every tick); until it holds the program is the original
  (= changed false)
  (on SpecialConditionTriggered (= changed true))

  (on left (= wind (Position -1 0)))
  (on right (= wind (Position 1 0)))
  (on up (= wind (Position 0 -1)))
  (on down (= wind (Position 0 1)))
  (on (& (> doses 0) (clicked healthy))
    (let (= vaccinated (addObj vaccinated (Vaccinated click)))
         (= healthy (removeObj healthy (--> pp (== (.. pp origin) click))))
         (= doses (- doses 1))))
  (on true
    (let (= hits (map cough sick))
         (= caught (if (== (length hits) 0) then (list)
                    else (filter (--> pp (in (.. pp origin) hits)) healthy)))
         (= healed (filter (--> pp (>= (.. pp timer) (if changed then 2 else 5))) sick))
         (= sick (concat (list (map (--> pp (updateObj pp "timer" (+ (.. pp timer) 1)))
                                    (filter (--> pp (< (.. pp timer) (if changed then 2 else 5))) sick))
                               (map (--> pp (Sick 0 (.. pp origin))) caught))))
         (= healthy (if (== (length caught) 0) then healthy
                     else (removeObj healthy (--> pp (in (.. pp origin) (spotsOf caught))))))
         (= recovered (addObj recovered (map (--> pp (Recovered (.. pp origin))) healed)))
         (= cases (+ cases (length caught)))
         (= quiet (if (== (length hits) 0) then (+ quiet 1) else 0))
         (if (== (% clock 30) 29)
          then (let (= healthy (addObj healthy (map (--> pp (Healthy (.. pp origin))) recovered)))
                    (= recovered (list)))
          else recovered)
         (if (& (>= quiet 3) (> (length healthy) 0))
          then (let (= unlucky (uniformChoice healthy))
                    (= sick (addObj sick (Sick 0 (.. unlucky origin))))
                    (= healthy (removeObj healthy (--> pp (== (.. pp origin) (.. unlucky origin)))))
                    (= cases (+ cases 1)))
          else sick))))
