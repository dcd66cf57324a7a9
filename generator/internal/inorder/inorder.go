// Package inorder runs independent steps side by side and reports as if
// they had run one after the other.
package inorder

import "sync"

// Each calls f(i) for every i in [0, n) on up to workers goroutines, every
// step tried, and returns the error of the lowest i that failed: the one a
// loop from 0 would have stopped at, so messages are the same on every run.
func Each(n, workers int, f func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				errs[i] = f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
