// Package fifo is the first-in, first-out queue the models' packet queues
// share (output queues, the reorder engine's output, NIC queues).
package fifo

// Queue is a FIFO on one array that it reuses: popping from the front
// leaves the slot for later pushes, and when the array is full to its end
// with room freed at the front, the queued items move down instead of the
// array growing. So a queue that never empties under steady traffic keeps
// a bounded array (a re-sliced queue would allocate forever). The zero
// Queue is empty and ready.
type Queue[T any] struct {
	items []T
	head  int
}

// Len is the number of items queued.
func (q *Queue[T]) Len() int { return len(q.items) - q.head }

// Push adds x at the back.
func (q *Queue[T]) Push(x T) {
	if q.head > 0 && len(q.items) == cap(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, x)
}

// Front is the oldest item; the queue must not be empty.
func (q *Queue[T]) Front() T { return q.items[q.head] }

// Pop removes and returns the oldest item; the queue must not be empty.
func (q *Queue[T]) Pop() T {
	x := q.items[q.head]
	var zero T
	q.items[q.head] = zero // the queue no longer keeps it alive
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return x
}

// Clear empties the queue, keeping its array.
func (q *Queue[T]) Clear() {
	clear(q.items)
	q.items, q.head = q.items[:0], 0
}
