package ops

// SetFlipLimit sets the largest left input h builds its hash table on (-1: never), so that
// tests reach both forms of semi and anti joins.
func SetFlipLimit(h *HashJoin, rows int64) { h.flipLimit = rows }
