package programs

import (
	"encoding/binary"
	"hash/crc32"
)

// crc8Tab are slicing-by-8 tables of CRC-32 (IEEE): crc8Tab[0] is the
// byte-at-a-time table, crc8Tab[k][b] the CRC of byte b followed by k
// zero bytes.
var crc8Tab = func() (t [8][256]uint32) {
	t[0] = *crc32.IEEETable
	for b := 0; b < 256; b++ {
		c := t[0][b]
		for k := 1; k < 8; k++ {
			c = t[0][c&0xff] ^ c>>8
			t[k][b] = c
		}
	}
	return t
}()

// crc32IEEE is crc32.ChecksumIEEE for the short inputs of a program's
// hash() (a few key fields): eight bytes per step with slicing-by-8, where
// the library goes byte by byte below 16 bytes.
func crc32IEEE(p []byte) uint32 {
	crc := ^uint32(0)
	for len(p) >= 8 {
		crc ^= binary.LittleEndian.Uint32(p)
		crc = crc8Tab[0][p[7]] ^ crc8Tab[1][p[6]] ^ crc8Tab[2][p[5]] ^ crc8Tab[3][p[4]] ^
			crc8Tab[4][crc>>24] ^ crc8Tab[5][crc>>16&0xff] ^ crc8Tab[6][crc>>8&0xff] ^ crc8Tab[7][crc&0xff]
		p = p[8:]
	}
	for _, b := range p {
		crc = crc8Tab[0][byte(crc)^b] ^ crc>>8
	}
	return ^crc
}
