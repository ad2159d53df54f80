;; The loops over rows laid out alike: the tokenizer's (tokenizer.ts fastRows) and the writers' (json.ts
;; writeSpaced, delimited.ts), in WebAssembly: V8 compiles it at once, where the same loops in JS run
;; the first megabytes in the interpreter. Compiled into fast-rows.ts by `npm run wasm`.
(module
  (memory (export "memory") 1)
  ;; Bytes 0-255: per byte in a string, 0 plain ASCII, 1 its end, 2 part of a UTF-8 sequence, 3 an escape
  ;; or a control; 256-511: 1 for a digit.
  (func $tables
    (memory.fill (i32.const 0) (i32.const 3) (i32.const 32))
    (memory.fill (i32.const 128) (i32.const 2) (i32.const 128))
    (i32.store8 (i32.const 34) (i32.const 1))
    (i32.store8 (i32.const 92) (i32.const 3))
    (memory.fill (i32.const 304) (i32.const 1) (i32.const 10))
    (call $shuffles))
  (start $tables)

  ;; Bytes 16384-20479: per 8-bit mask, the positions of its set bits (i8x16.swizzle's indexes, which
  ;; gather those bytes of a half of 16 to the front); 20480-24575: the same for the upper half.
  (func $shuffles
    (local $m i32) (local $b i32) (local $at i32)
    (loop $mask
      (local.set $at (i32.add (i32.const 16384) (i32.shl (local.get $m) (i32.const 4))))
      (local.set $b (i32.const 0))
      (loop $bit
        (if (i32.and (local.get $m) (i32.shl (i32.const 1) (local.get $b)))
          (then
            (i32.store8 (local.get $at) (local.get $b))
            (i32.store8 offset=4096 (local.get $at) (i32.add (local.get $b) (i32.const 8)))
            (local.set $at (i32.add (local.get $at) (i32.const 1)))))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (br_if $bit (i32.lt_u (local.get $b) (i32.const 8))))
      (local.set $m (i32.add (local.get $m) (i32.const 1)))
      (br_if $mask (i32.lt_u (local.get $m) (i32.const 256)))))
  (global $count (export "count") (mut i32) (i32.const 0))
  (global $high (export "high") (mut i32) (i32.const 0))
  (global $outAt (export "outAt") (mut i32) (i32.const 0))
  ;; 1 when whitespace came before or after a row.
  (global $loose (export "loose") (mut i32) (i32.const 0))
  ;; Why it stopped: 0 a row unlike the template, 1 the bytes ran out (all so far like it), 2 the tape
  ;; is full, 3 past the rows' `]`.
  (global $why (export "why") (mut i32) (i32.const 0))

  (func $ws (param $p i32) (param $n i32) (result i32)
    (local $c i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $n)))
        (local.set $c (i32.load8_u (local.get $p)))
        (br_if $done
          (i32.and
            (i32.and (i32.ne (local.get $c) (i32.const 32)) (i32.ne (local.get $c) (i32.const 10)))
            (i32.and (i32.ne (local.get $c) (i32.const 13)) (i32.ne (local.get $c) (i32.const 9)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (local.get $p))

  ;; Past the digits from $p: 16 bytes at a time while 16 are at hand.
  (func $digits (param $p i32) (param $n i32) (result i32)
    (local $m i32)
    (block $done
      (loop $wide
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $n)))
        (local.set $m
          (i8x16.bitmask
            (i8x16.gt_u (i8x16.sub (v128.load (local.get $p)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))
              (v128.const i8x16 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9))))
        (if (local.get $m) (then (return (i32.add (local.get $p) (i32.ctz (local.get $m))))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $wide))
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $n)))
        (br_if $done (i32.eqz (i32.load8_u offset=256 (i32.load8_u (local.get $p)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (local.get $p))

  ;; Rows from $p (bytes up to $n) with the template's bytes around their values: `lit`, split at the
  ;; i32 offsets `litAt[0..members+1]`, the keys' ids `keys[0..members-1]`. Each row's tape entries (8
  ;; i32 each: tape.ts F) go from $out on, positions plus $base, entry indexes plus $tbase. Returns where
  ;; the rows read end (past their `,` or `]`); row r's entry index goes to rowsOut[r].
  (func (export "rows")
    (param $p i32) (param $n i32) (param $lit i32) (param $litAt i32) (param $keys i32)
    (param $members i32) (param $flags i32) (param $out i32) (param $outEnd i32)
    (param $base i32) (param $tbase i32) (param $rowsOut i32) (result i32)
    (local $done i32) (local $out0 i32) (local $row i32) (local $start i32) (local $m i32) (local $i i32)
    (local $from i32) (local $end i32) (local $c i32) (local $k i32) (local $vs i32) (local $kind i32)
    (local $q i32) (local $hi i32) (local $d i32) (local $v v128)
    (global.set $count (i32.const 0))
    (global.set $high (i32.const 0))
    (global.set $why (i32.const 0))
    (global.set $loose (i32.const 0))
    (local.set $done (local.get $p))
    (local.set $out0 (local.get $out))
    (block $stop
      (block $short
        (loop $row_loop
          (local.set $q (call $ws (local.get $p) (local.get $n)))
          (if (i32.ne (local.get $q) (local.get $p)) (then (global.set $loose (i32.const 1))))
          (local.set $p (local.get $q))
          (if (i32.gt_u
                (i32.add (local.get $out) (i32.shl (i32.add (local.get $members) (i32.const 1)) (i32.const 5)))
                (local.get $outEnd))
            (then (global.set $why (i32.const 2)) (br $stop)))
          (local.set $row (local.get $out))
          (local.set $start (local.get $p))
          (local.set $m (i32.add (local.get $row) (i32.const 32)))
          (local.set $i (i32.const 0))
          (local.set $hi (i32.const 0))
          (block $row_end
            (loop $member
              ;; The bytes before value i (or the row's end).
              (local.set $from (i32.load (i32.add (local.get $litAt) (i32.shl (local.get $i) (i32.const 2)))))
              (local.set $end
                (i32.add (local.get $p)
                  (i32.sub
                    (i32.load (i32.add (local.get $litAt) (i32.shl (i32.add (local.get $i) (i32.const 1)) (i32.const 2))))
                    (local.get $from))))
              (local.set $from (i32.add (local.get $lit) (local.get $from)))
              ;; 16 at a time, then the rest in one compare of the 16 bytes from there (bytes past the
              ;; template's masked out), or one at a time near the end of the bytes at hand.
              (block $words
                (loop $word
                  (br_if $words (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
                  (br_if $words (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $n)))
                  (br_if $stop (v128.any_true (v128.xor (v128.load (local.get $p)) (v128.load (local.get $from)))))
                  (local.set $p (i32.add (local.get $p) (i32.const 16)))
                  (local.set $from (i32.add (local.get $from) (i32.const 16)))
                  (br $word)))
              (block $bytes
                (br_if $bytes (i32.ge_u (local.get $p) (local.get $end)))
                (if (i32.le_u (i32.add (local.get $p) (i32.const 16)) (local.get $n))
                  (then
                    (br_if $stop
                      (i32.and
                        (i8x16.bitmask (i8x16.ne (v128.load (local.get $p)) (v128.load (local.get $from))))
                        (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $end) (local.get $p))) (i32.const 1))))
                    (local.set $p (local.get $end))
                    (br $bytes)))
                (loop $byte
                  (br_if $bytes (i32.ge_u (local.get $p) (local.get $end)))
                  (br_if $short (i32.ge_u (local.get $p) (local.get $n)))
                  (br_if $stop (i32.ne (i32.load8_u (local.get $p)) (i32.load8_u (local.get $from))))
                  (local.set $p (i32.add (local.get $p) (i32.const 1)))
                  (local.set $from (i32.add (local.get $from) (i32.const 1)))
                  (br $byte)))
              (br_if $row_end (i32.eq (local.get $i) (local.get $members)))
              (br_if $short (i32.ge_u (local.get $p) (local.get $n)))
              (local.set $c (i32.load8_u (local.get $p)))
              (local.set $vs (local.get $p))
              (block $value
                ;; A string without escapes: its bytes between the quotes.
                (if (i32.eq (local.get $c) (i32.const 34))
                  (then
                    (local.set $kind (i32.const 0))
                    (local.set $p (i32.add (local.get $p) (i32.const 1)))
                    (local.set $vs (local.get $p))
                    (block $closed
                      ;; 16 bytes at a time: to the first quote, backslash or control byte, noting any
                      ;; byte of a UTF-8 sequence before it.
                      (block $narrow
                        (loop $wide
                          (br_if $narrow (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $n)))
                          (local.set $v (v128.load (local.get $p)))
                          (local.set $k
                            (i8x16.bitmask
                              (v128.or
                                (v128.or
                                  (i8x16.eq (local.get $v) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))
                                  (i8x16.eq (local.get $v) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92)))
                                (i8x16.lt_u (local.get $v) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))))
                          (local.set $c (i8x16.bitmask (local.get $v)))
                          (if (i32.eqz (local.get $k))
                            (then
                              (if (local.get $c) (then (local.set $kind (i32.const 1))))
                              (local.set $p (i32.add (local.get $p) (i32.const 16)))
                              (br $wide)))
                          (if (i32.and (local.get $c) (i32.sub (i32.and (local.get $k) (i32.sub (i32.const 0) (local.get $k))) (i32.const 1)))
                            (then (local.set $kind (i32.const 1))))
                          (local.set $p (i32.add (local.get $p) (i32.ctz (local.get $k))))
                          (br_if $closed (i32.eq (i32.load8_u (local.get $p)) (i32.const 34)))
                          (br $stop)))
                      (loop $char
                        (br_if $short (i32.ge_u (local.get $p) (local.get $n)))
                        (local.set $k (i32.load8_u (i32.load8_u (local.get $p))))
                        (br_if $closed (i32.eq (local.get $k) (i32.const 1)))
                        (br_if $stop (i32.eq (local.get $k) (i32.const 3)))
                        (if (i32.eq (local.get $k) (i32.const 2)) (then (local.set $kind (i32.const 1))))
                        (local.set $p (i32.add (local.get $p) (i32.const 1)))
                        (br $char)))
                    (local.set $hi (i32.add (local.get $hi) (local.get $kind)))
                    (i32.store offset=8 (local.get $m) (i32.add (local.get $p) (local.get $base)))
                    (local.set $p (i32.add (local.get $p) (i32.const 1)))
                    (br $value)))
                ;; true, false, null.
                (if (i32.or (i32.eq (local.get $c) (i32.const 116)) (i32.eq (local.get $c) (i32.const 110)))
                  (then
                    (br_if $short (i32.gt_u (i32.add (local.get $p) (i32.const 4)) (local.get $n)))
                    (local.set $k (i32.load (local.get $p)))
                    (if (i32.eq (local.get $k) (i32.const 0x65757274))
                      (then (local.set $kind (i32.const 4)))
                      (else
                        (br_if $stop (i32.ne (local.get $k) (i32.const 0x6c6c756e)))
                        (local.set $kind (i32.const 6))))
                    (local.set $p (i32.add (local.get $p) (i32.const 4)))
                    (i32.store offset=8 (local.get $m) (i32.add (local.get $p) (local.get $base)))
                    (br $value)))
                (if (i32.eq (local.get $c) (i32.const 102))
                  (then
                    (br_if $short (i32.gt_u (i32.add (local.get $p) (i32.const 5)) (local.get $n)))
                    (br_if $stop (i32.ne (i32.load (i32.add (local.get $p) (i32.const 1))) (i32.const 0x65736c61)))
                    (local.set $kind (i32.const 5))
                    (local.set $p (i32.add (local.get $p) (i32.const 5)))
                    (i32.store offset=8 (local.get $m) (i32.add (local.get $p) (local.get $base)))
                    (br $value)))
                ;; A number.
                (if (i32.eq (local.get $c) (i32.const 45)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
                (block $fraction_done
                  ;; The integer and fraction digits from one load of 16 bytes when they end within it.
                  (block $narrow
                    (br_if $narrow (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $n)))
                    (local.set $d
                      (i8x16.bitmask
                        (i8x16.gt_u (i8x16.sub (v128.load (local.get $p)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))
                          (v128.const i8x16 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9))))
                    (br_if $stop (i32.and (local.get $d) (i32.const 1)))
                    (local.set $k (select (i32.const 1) (i32.ctz (local.get $d)) (i32.eq (i32.load8_u (local.get $p)) (i32.const 48))))
                    (br_if $narrow (i32.ge_u (local.get $k) (i32.const 15)))
                    (local.set $p (i32.add (local.get $p) (local.get $k)))
                    (br_if $fraction_done (i32.ne (i32.load8_u (local.get $p)) (i32.const 46)))
                    (local.set $d (i32.shr_u (local.get $d) (i32.add (local.get $k) (i32.const 1))))
                    (br_if $stop (i32.and (local.get $d) (i32.const 1)))
                    (if (i32.eqz (local.get $d))
                      (then (local.set $p (call $digits (i32.add (local.get $p) (i32.const 1)) (local.get $n))) (br $fraction_done)))
                    (local.set $p (i32.add (local.get $p) (i32.add (i32.ctz (local.get $d)) (i32.const 1))))
                    (br $fraction_done))
                  (br_if $short (i32.ge_u (local.get $p) (local.get $n)))
                  (local.set $c (i32.load8_u (local.get $p)))
                  (if (i32.eq (local.get $c) (i32.const 48))
                    (then (local.set $p (i32.add (local.get $p) (i32.const 1))))
                    (else
                      (br_if $stop (i32.or (i32.lt_u (local.get $c) (i32.const 49)) (i32.gt_u (local.get $c) (i32.const 57))))
                      (local.set $p (call $digits (i32.add (local.get $p) (i32.const 1)) (local.get $n)))))
                  (if (i32.lt_u (local.get $p) (local.get $n))
                    (then
                      (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 46))
                        (then
                          (local.set $q (i32.add (local.get $p) (i32.const 1)))
                          (local.set $p (call $digits (local.get $q) (local.get $n)))
                          (if (i32.eq (local.get $p) (local.get $q))
                            (then (br_if $short (i32.ge_u (local.get $p) (local.get $n))) (br $stop))))))))
                (br_if $short (i32.ge_u (local.get $p) (local.get $n)))
                (if (i32.eq (i32.or (i32.load8_u (local.get $p)) (i32.const 32)) (i32.const 101))
                  (then
                    (local.set $p (i32.add (local.get $p) (i32.const 1)))
                    (br_if $short (i32.ge_u (local.get $p) (local.get $n)))
                    (local.set $c (i32.load8_u (local.get $p)))
                    (if (i32.or (i32.eq (local.get $c) (i32.const 43)) (i32.eq (local.get $c) (i32.const 45)))
                      (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
                    (local.set $q (local.get $p))
                    (local.set $p (call $digits (local.get $q) (local.get $n)))
                    (br_if $short (i32.ge_u (local.get $p) (local.get $n)))
                    (br_if $stop (i32.eq (local.get $p) (local.get $q)))))
                (local.set $kind (i32.const 3))
                (i32.store offset=8 (local.get $m) (i32.add (local.get $p) (local.get $base))))
              (i32.store (local.get $m) (local.get $kind))
              (i32.store offset=4 (local.get $m) (i32.add (local.get $vs) (local.get $base)))
              (i32.store offset=12 (local.get $m)
                (i32.load (i32.add (local.get $keys) (i32.shl (local.get $i) (i32.const 2)))))
              (local.set $m (i32.add (local.get $m) (i32.const 32)))
              (i32.store offset=24 (i32.sub (local.get $m) (i32.const 32))
                (i32.add (local.get $tbase) (i32.shr_u (i32.sub (local.get $m) (local.get $out0)) (i32.const 2))))
              (local.set $i (i32.add (local.get $i) (i32.const 1)))
              (br $member)))
          ;; Then `,` or `]`.
          (local.set $q (call $ws (local.get $p) (local.get $n)))
          (if (i32.ne (local.get $q) (local.get $p)) (then (global.set $loose (i32.const 1))))
          (br_if $short (i32.ge_u (local.get $q) (local.get $n)))
          (local.set $c (i32.load8_u (local.get $q)))
          (br_if $stop (i32.and (i32.ne (local.get $c) (i32.const 44)) (i32.ne (local.get $c) (i32.const 93))))
          (i32.store (local.get $row) (i32.const 7))
          (i32.store offset=4 (local.get $row) (i32.add (local.get $start) (local.get $base)))
          (i32.store offset=8 (local.get $row) (i32.add (local.get $p) (local.get $base)))
          (i32.store offset=12 (local.get $row) (i32.const 0))
          (i32.store offset=24 (local.get $row)
            (i32.add (local.get $tbase) (i32.shr_u (i32.sub (local.get $m) (local.get $out0)) (i32.const 2))))
          (i32.store offset=28 (local.get $row) (local.get $flags))
          (i32.store (i32.add (local.get $rowsOut) (i32.shl (global.get $count) (i32.const 2)))
            (i32.add (local.get $tbase) (i32.shr_u (i32.sub (local.get $row) (local.get $out0)) (i32.const 2))))
          (local.set $out (local.get $m))
          (global.set $count (i32.add (global.get $count) (i32.const 1)))
          (global.set $high (i32.add (global.get $high) (local.get $hi)))
          (local.set $p (i32.add (local.get $q) (i32.const 1)))
          (local.set $done (local.get $p))
          (if (i32.eq (local.get $c) (i32.const 93)) (then (global.set $why (i32.const 3)) (br $stop)))
          (br $row_loop)))
      (global.set $why (i32.const 1)))
    (global.set $outAt (local.get $out))
    (local.get $done))

  ;; Rows written without the whitespace between their tokens (as JSON.stringify writes a row without
  ;; escapes): row r is the bytes from rows[2r] to rows[2r + 1], `sep` between rows. Returns where the
  ;; output ends. 16 bytes at a time without a branch on them: a byte is in a string when an odd number
  ;; of quotes lead up to it (no escapes), whitespace outside strings is dropped and the rest gathered to
  ;; the front by the shuffles' tables, 8 at a time. The memory has 16 bytes to spare past the input and
  ;; the output.
  (func (export "compact") (param $rows i32) (param $count i32) (param $out i32) (param $sep i32) (result i32)
    (local $r i32) (local $p i32) (local $end i32) (local $v v128) (local $q i32) (local $carry i32)
    (local $keep i32) (local $k i32)
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $count)))
        (if (local.get $r) (then (i32.store8 (local.get $out) (local.get $sep)) (local.set $out (i32.add (local.get $out) (i32.const 1)))))
        (local.set $p (i32.load (i32.add (local.get $rows) (i32.shl (local.get $r) (i32.const 3)))))
        (local.set $end (i32.load offset=4 (i32.add (local.get $rows) (i32.shl (local.get $r) (i32.const 3)))))
        (local.set $carry (i32.const 0))
        (block $row_end
          (loop $block
            (br_if $row_end (i32.ge_u (local.get $p) (local.get $end)))
            (local.set $v (v128.load (local.get $p)))
            ;; In a string: the parity of the quotes up to each byte (a prefix XOR), and the carry of it.
            (local.set $q
              (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))))
            (local.set $q (i32.xor (local.get $q) (i32.shl (local.get $q) (i32.const 1))))
            (local.set $q (i32.xor (local.get $q) (i32.shl (local.get $q) (i32.const 2))))
            (local.set $q (i32.xor (local.get $q) (i32.shl (local.get $q) (i32.const 4))))
            (local.set $q (i32.and (i32.xor (i32.xor (local.get $q) (i32.shl (local.get $q) (i32.const 8))) (local.get $carry)) (i32.const 0xffff)))
            (local.set $carry (i32.sub (i32.const 0) (i32.shr_u (local.get $q) (i32.const 15))))
            (local.set $keep
              (i32.xor
                (i32.and
                  (i8x16.bitmask (i8x16.lt_u (local.get $v) (v128.const i8x16 33 33 33 33 33 33 33 33 33 33 33 33 33 33 33 33)))
                  (i32.xor (local.get $q) (i32.const 0xffff)))
                (i32.const 0xffff)))
            (local.set $k (i32.sub (local.get $end) (local.get $p)))
            (if (i32.lt_u (local.get $k) (i32.const 16))
              (then (local.set $keep (i32.and (local.get $keep) (i32.sub (i32.shl (i32.const 1) (local.get $k)) (i32.const 1))))))
            (local.set $k (i32.and (local.get $keep) (i32.const 255)))
            (v128.store (local.get $out)
              (i8x16.swizzle (local.get $v) (v128.load offset=16384 (i32.shl (local.get $k) (i32.const 4)))))
            (local.set $out (i32.add (local.get $out) (i32.popcnt (local.get $k))))
            (local.set $k (i32.shr_u (local.get $keep) (i32.const 8)))
            (v128.store (local.get $out)
              (i8x16.swizzle (local.get $v) (v128.load offset=20480 (i32.shl (local.get $k) (i32.const 4)))))
            (local.set $out (i32.add (local.get $out) (i32.popcnt (local.get $k))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (br $block)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
    (local.get $out))

  ;; CSV/TSV lines of rows whose leaves are the columns in order (delimited.ts writeDelimited): row r's
  ;; tape entry is rows[r] (an index of the tape whose entry 0 is at $tape), a position p in the body is
  ;; at $body + p. Cells are the values' bytes, null empty, a CSV cell with a comma quoted; column c's
  ;; cell is the lead's where fixed[2c + 1] >= 0 (its bytes at fixed[2c]), and an object under a lead
  ;; field's key (leadIds) is not gone into. Stops before a row otherwise (its line is then the JS's to
  ;; write); returns how many rows it wrote, `end` where.
  (global $end (export "end") (mut i32) (i32.const 0))
  (func (export "delimited")
    (param $rows i32) (param $count i32) (param $tape i32) (param $body i32) (param $ids i32)
    (param $n i32) (param $sep i32) (param $out i32) (param $fixed i32) (param $leadIds i32) (param $leads i32)
    (result i32)
    (local $r i32) (local $j i32) (local $e i32) (local $m i32) (local $last i32) (local $c i32) (local $line i32)
    (local $kind i32) (local $p i32) (local $to i32) (local $from i32) (local $comma i32) (local $x i32)
    (local $v v128)
    (block $stop
      (loop $row
        (br_if $stop (i32.ge_u (local.get $r) (local.get $count)))
        (local.set $line (local.get $out))
        (local.set $e
          (i32.add (local.get $tape)
            (i32.shl (i32.load (i32.add (local.get $rows) (i32.shl (local.get $r) (i32.const 2)))) (i32.const 2))))
        (br_if $stop (i32.and (i32.load offset=28 (local.get $e)) (i32.const 4)))
        (local.set $last (i32.add (local.get $tape) (i32.shl (i32.load offset=24 (local.get $e)) (i32.const 2))))
        (local.set $m (i32.add (local.get $e) (i32.const 32)))
        (local.set $c (i32.const 0))
        (block $cells
          (loop $cell
            (br_if $cells (i32.ge_u (local.get $c) (local.get $n)))
            (if (local.get $c)
              (then (i32.store8 (local.get $out) (local.get $sep)) (local.set $out (i32.add (local.get $out) (i32.const 1)))))
            (local.set $to (i32.load offset=4 (i32.add (local.get $fixed) (i32.shl (local.get $c) (i32.const 3)))))
            (if (i32.ge_s (local.get $to) (i32.const 0))
              (then
                (memory.copy (local.get $out)
                  (i32.load (i32.add (local.get $fixed) (i32.shl (local.get $c) (i32.const 3)))) (local.get $to))
                (local.set $out (i32.add (local.get $out) (local.get $to)))
                (local.set $c (i32.add (local.get $c) (i32.const 1)))
                (br $cell)))
            ;; Into nested objects, not a lead field's.
            (block $leaf
              (loop $down
                (br_if $leaf (i32.ge_u (local.get $m) (local.get $last)))
                (br_if $leaf (i32.ne (i32.load (local.get $m)) (i32.const 7)))
                (br_if $leaf
                  (i32.eq (i32.add (local.get $tape) (i32.shl (i32.load offset=24 (local.get $m)) (i32.const 2)))
                    (i32.add (local.get $m) (i32.const 32))))
                (local.set $j (i32.const 0))
                (block $other
                  (loop $lead
                    (br_if $other (i32.ge_u (local.get $j) (local.get $leads)))
                    (br_if $leaf
                      (i32.eq (i32.load offset=12 (local.get $m))
                        (i32.load (i32.add (local.get $leadIds) (i32.shl (local.get $j) (i32.const 2))))))
                    (local.set $j (i32.add (local.get $j) (i32.const 1)))
                    (br $lead)))
                (local.set $m (i32.add (local.get $m) (i32.const 32)))
                (br $down)))
            (br_if $stop (i32.ge_u (local.get $m) (local.get $last)))
            (br_if $stop
              (i32.ne (i32.load offset=12 (local.get $m))
                (i32.load (i32.add (local.get $ids) (i32.shl (local.get $c) (i32.const 2))))))
            (local.set $kind (i32.load (local.get $m)))
            (br_if $stop (i32.or (i32.eq (local.get $kind) (i32.const 2)) (i32.gt_u (local.get $kind) (i32.const 6))))
            (local.set $from (local.get $out))
            (local.set $comma (i32.const 0))
            (if (i32.ne (local.get $kind) (i32.const 6))
              (then
                (local.set $p (i32.add (local.get $body) (i32.load offset=4 (local.get $m))))
                (local.set $to (i32.add (local.get $body) (i32.load offset=8 (local.get $m))))
                ;; 16 bytes at a time (stored whole: the memory has 16 to spare past the body and the output).
                (block $copied
                  (loop $bytes
                    (br_if $copied (i32.ge_u (local.get $p) (local.get $to)))
                    (local.set $v (v128.load (local.get $p)))
                    (v128.store (local.get $out) (local.get $v))
                    (local.set $x (i32.sub (local.get $to) (local.get $p)))
                    (if (i32.gt_u (local.get $x) (i32.const 16)) (then (local.set $x (i32.const 16))))
                    (local.set $comma
                      (i32.or (local.get $comma)
                        (i32.ne (i32.const 0)
                          (i32.and
                            (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44)))
                            (i32.sub (i32.shl (i32.const 1) (local.get $x)) (i32.const 1))))))
                    (local.set $out (i32.add (local.get $out) (local.get $x)))
                    (local.set $p (i32.add (local.get $p) (local.get $x)))
                    (br $bytes)))))
            (local.set $m (i32.add (local.get $m) (i32.const 32)))
            ;; Without escapes a string holds no quote, CR or LF (nor TSV's backslash, tab): only a comma
            ;; needs quotes.
            (if (i32.and (local.get $comma) (i32.eq (local.get $sep) (i32.const 44)))
              (then
                (memory.copy (i32.add (local.get $from) (i32.const 1)) (local.get $from)
                  (i32.sub (local.get $out) (local.get $from)))
                (i32.store8 (local.get $from) (i32.const 34))
                (i32.store8 offset=1 (local.get $out) (i32.const 34))
                (local.set $out (i32.add (local.get $out) (i32.const 2)))))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))
            (br $cell)))
        (br_if $stop (i32.ne (local.get $m) (local.get $last)))
        (br_if $stop (i32.and (i32.le_u (local.get $n) (i32.const 1)) (i32.eq (local.get $out) (local.get $line))))
        (i32.store8 (local.get $out) (i32.const 10))
        (local.set $out (i32.add (local.get $out) (i32.const 1)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
    (global.set $end (local.get $line))
    (if (i32.ge_u (local.get $r) (local.get $count)) (then (global.set $end (local.get $out))))
    (local.get $r))
)
