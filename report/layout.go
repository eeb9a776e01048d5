package report

import (
	"math"
	"sort"
)

// The layout is Sugiyama's layered drawing, written here so that the page
// needs no layout library and the same sets always give the same picture:
//
//  1. cycles are broken by reversing the back edges of a depth-first search;
//  2. each package goes to the lowest row its dependencies allow (longest
//     path from the packages that depend on nothing), so dependencies are
//     below their dependents;
//  3. an edge longer than one row gets a chain of invisible dummy nodes, one
//     per row it crosses, so that it can bend around boxes;
//  4. the order within each row is chosen to reduce crossings: alternate
//     downward and upward sweeps placing each node at the barycentre of its
//     neighbours in the row before, each followed by a transposition pass
//     that swaps neighbours while that removes crossings; the best order
//     seen is kept;
//  5. x positions pull each node towards the mean of its neighbours while
//     keeping the row's order and spacing (a weighted isotonic regression,
//     solved exactly by pool-adjacent-violators), dummies weighing more so
//     long edges run straight.
//
// Packages with no edge at all are set in a grid below, by product.

// Sizes in pixels.
const (
	nodeH      = 22.0
	charW      = 6.6 // per character of the 11px monospace label
	nodePadX   = 14.0
	gapX       = 16.0 // between boxes in a row
	dummyGap   = 6.0
	rowGap     = 70.0 // from one row's centre to the next
	margin     = 20.0
	gridGapY   = 40.0
	sweeps     = 24
	placeIters = 12
)

// lnode is a node of the layered graph: a package or a dummy.
type lnode struct {
	real     *Node
	rank     int
	pos      int // index in its row
	w, x     float64
	up, down []int // neighbours in the rows above and below
	weight   float64
	order0   int // initial order key
}

// ledge is an edge of the layered graph, from and to as laid out (top to
// bottom): reversed when it closed a cycle.
type ledge struct {
	e        *Edge
	from, to int
}

// chain is the path an edge takes through the rows.
type chain struct {
	e     *Edge
	nodes []int // top to bottom, the real ends included
}

// layout sets every node's box and position, every edge's points and the
// drawing's size, in the steps the comment above numbers.
func layout(g *Graph) {
	sizeBoxes(g)
	ls, index := connected(g)
	les := breakCycles(g, ls, index)
	top := assignRanks(ls, les)
	ls, chains := addDummies(ls, les)
	rows := initialOrder(ls, top)
	rows = reduceCrossings(ls, rows)
	placeX(ls, rows)
	width, height := setCoordinates(ls, top)
	routeEdges(ls, chains)
	width, height = gridIsolated(g, width, height, len(ls) == 0)
	g.Width, g.Height = math.Ceil(width), math.Ceil(height)
}

// sizeBoxes gives every package its box, sized for its name.
func sizeBoxes(g *Graph) {
	for _, n := range g.Nodes {
		n.W = float64(len(n.Name))*charW + nodePadX
		n.H = nodeH
	}
}

// connected marks the packages with no edge Isolated and returns the
// others as layered nodes, with each one's index by name.
func connected(g *Graph) ([]*lnode, map[string]int) {
	index := map[string]int{}
	var ls []*lnode
	degree := map[string]int{}
	for _, e := range g.Edges {
		degree[e.From]++
		degree[e.To]++
	}
	for _, n := range g.Nodes {
		if degree[n.Name] == 0 {
			n.Isolated = true
			continue
		}
		index[n.Name] = len(ls)
		ls = append(ls, &lnode{real: n, w: n.W, weight: 1})
	}
	return ls, index
}

// breakCycles (step 1) searches depth-first from every node in name order;
// an edge to a node on the stack is reversed (and marked Reversed).
func breakCycles(g *Graph, ls []*lnode, index map[string]int) []ledge {
	out := make([][]int, len(ls))
	var les []ledge
	for _, e := range g.Edges {
		out[index[e.From]] = append(out[index[e.From]], len(les))
		les = append(les, ledge{e: e, from: index[e.From], to: index[e.To]})
	}
	state := make([]int, len(ls)) // 0 new, 1 on stack, 2 done
	var dfs func(v int)
	dfs = func(v int) {
		state[v] = 1
		for _, i := range out[v] {
			w := les[i].to
			switch state[w] {
			case 0:
				dfs(w)
			case 1:
				les[i].from, les[i].to = les[i].to, les[i].from
				les[i].e.Reversed = true
			}
		}
		state[v] = 2
	}
	for v := range ls {
		if state[v] == 0 {
			dfs(v)
		}
	}
	return les
}

// assignRanks (step 2) sets each node's row from its longest path to a
// sink, rank 0 the top row, and returns the bottom row's rank.
func assignRanks(ls []*lnode, les []ledge) int {
	succ := make([][]int, len(ls))
	for _, le := range les {
		succ[le.from] = append(succ[le.from], le.to)
	}
	height := make([]int, len(ls))
	for i := range height {
		height[i] = -1
	}
	var h func(v int) int
	h = func(v int) int {
		if height[v] >= 0 {
			return height[v]
		}
		best := 0
		for _, w := range succ[v] {
			best = max(best, h(w)+1)
		}
		height[v] = best
		return best
	}
	top := 0
	for v := range ls {
		top = max(top, h(v))
	}
	for v, n := range ls {
		n.rank = top - height[v]
	}
	return top
}

// addDummies (step 3) gives each edge a dummy node in every row it
// crosses, links neighbours row to row, and returns the nodes with the
// dummies appended and each edge's chain.
func addDummies(ls []*lnode, les []ledge) ([]*lnode, []chain) {
	var chains []chain
	for _, le := range les {
		c := chain{e: le.e, nodes: []int{le.from}}
		prev := le.from
		for r := ls[le.from].rank + 1; r < ls[le.to].rank; r++ {
			d := len(ls)
			ls = append(ls, &lnode{rank: r, weight: 4})
			ls[prev].down = append(ls[prev].down, d)
			ls[d].up = append(ls[d].up, prev)
			c.nodes = append(c.nodes, d)
			prev = d
		}
		ls[prev].down = append(ls[prev].down, le.to)
		ls[le.to].up = append(ls[le.to].up, prev)
		c.nodes = append(c.nodes, le.to)
		chains = append(chains, c)
	}
	return ls, chains
}

// initialOrder puts the nodes in rows, ordered so that rows below follow
// the order of the first rows by a depth-first walk from the top, products
// kept together.
func initialOrder(ls []*lnode, top int) [][]int {
	rows := make([][]int, top+1)
	for v, n := range ls {
		rows[n.rank] = append(rows[n.rank], v)
	}
	seen := make([]bool, len(ls))
	counter := 0
	var walk func(v int)
	walk = func(v int) {
		if seen[v] {
			return
		}
		seen[v] = true
		ls[v].order0 = counter
		counter++
		kids := append([]int(nil), ls[v].down...)
		sort.SliceStable(kids, func(i, j int) bool { return lessNode(ls[kids[i]], ls[kids[j]]) })
		for _, k := range kids {
			walk(k)
		}
	}
	starts := make([]int, 0, len(ls))
	for v := range ls {
		starts = append(starts, v)
	}
	sort.SliceStable(starts, func(i, j int) bool {
		a, b := ls[starts[i]], ls[starts[j]]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		return lessNode(a, b)
	})
	for _, v := range starts {
		walk(v)
	}
	for _, row := range rows {
		sort.SliceStable(row, func(i, j int) bool { return ls[row[i]].order0 < ls[row[j]].order0 })
		renumber(ls, row)
	}
	return rows
}

// reduceCrossings (step 4) sweeps down and up by barycentres, each sweep
// followed by a transposition pass, and returns the order with the fewest
// crossings seen.
func reduceCrossings(ls []*lnode, rows [][]int) [][]int {
	best := snapshot(rows)
	bestX := crossings(ls, rows)
	for it := 0; it < sweeps && bestX > 0; it++ {
		if it%2 == 0 {
			for r := 1; r < len(rows); r++ {
				sortByBarycentre(ls, rows[r], func(n *lnode) []int { return n.up })
			}
		} else {
			for r := len(rows) - 2; r >= 0; r-- {
				sortByBarycentre(ls, rows[r], func(n *lnode) []int { return n.down })
			}
		}
		transpose(ls, rows)
		if x := crossings(ls, rows); x < bestX {
			bestX, best = x, snapshot(rows)
		}
	}
	for _, row := range best {
		renumber(ls, row)
	}
	return best
}

// placeX (step 5) spaces each row, then pulls nodes towards their
// neighbours: sweeps down and up, then one pass looking both ways.
func placeX(ls []*lnode, rows [][]int) {
	for _, row := range rows {
		x := 0.0
		for i, v := range row {
			if i > 0 {
				x += sep(ls[row[i-1]], ls[v])
			}
			ls[v].x = x
		}
	}
	upFirst := func(n *lnode) []int {
		if len(n.up) > 0 {
			return n.up
		}
		return n.down
	}
	downFirst := func(n *lnode) []int {
		if len(n.down) > 0 {
			return n.down
		}
		return n.up
	}
	both := func(n *lnode) []int { return append(append([]int(nil), n.up...), n.down...) }
	for it := 0; it < placeIters; it++ {
		for r := range rows {
			place(ls, rows[r], upFirst)
		}
		for r := len(rows) - 1; r >= 0; r-- {
			place(ls, rows[r], downFirst)
		}
	}
	for r := range rows {
		place(ls, rows[r], both)
	}
}

// setCoordinates shifts the drawing to start at the margin, gives the
// packages their positions and returns the layered part's width and
// height (the margin alone when there is none).
func setCoordinates(ls []*lnode, top int) (width, height float64) {
	minX, maxX := math.Inf(1), math.Inf(-1)
	for _, n := range ls {
		minX = math.Min(minX, n.x-n.w/2)
		maxX = math.Max(maxX, n.x+n.w/2)
	}
	if len(ls) == 0 {
		minX, maxX = 0, 0
	}
	for _, n := range ls {
		n.x = round(n.x - minX + margin)
		if n.real != nil {
			n.real.X, n.real.Y, n.real.Rank = n.x, round(margin+nodeH/2+float64(n.rank)*rowGap), n.rank
		}
	}
	width = maxX - minX + 2*margin
	height = margin
	if len(ls) > 0 {
		height = margin + float64(top)*rowGap + nodeH + margin
	}
	return width, height
}

// routeEdges gives each edge the points of its chain, from the bottom of
// its dependent's box to the top of its dependency's, in the edge's own
// direction.
func routeEdges(ls []*lnode, chains []chain) {
	for _, c := range chains {
		var pts []Point
		for i, v := range c.nodes {
			n := ls[v]
			y := margin + nodeH/2 + float64(n.rank)*rowGap
			switch {
			case i == 0:
				y += nodeH / 2
			case i == len(c.nodes)-1:
				y -= nodeH / 2
			}
			pts = append(pts, Point{n.x, round(y)})
		}
		if c.e.Reversed {
			for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
				pts[i], pts[j] = pts[j], pts[i]
			}
		}
		c.e.Points = pts
	}
}

// gridIsolated sets the isolated packages in a grid below the layered
// part (at the top when there is none), by product then name, and returns
// the drawing's width and height with them.
func gridIsolated(g *Graph, width, height float64, noLayers bool) (float64, float64) {
	var iso []*Node
	for _, n := range g.Nodes {
		if n.Isolated {
			iso = append(iso, n)
		}
	}
	sort.SliceStable(iso, func(i, j int) bool {
		if iso[i].Product != iso[j].Product {
			return iso[i].Product < iso[j].Product
		}
		return iso[i].Name < iso[j].Name
	})
	limit := math.Max(width, 900)
	x, y := margin, height+gridGapY
	if noLayers {
		y = margin
	}
	for i, n := range iso {
		if i > 0 && x+n.W > limit-margin {
			x, y = margin, y+nodeH+gapX
		}
		n.X, n.Y, n.Rank = round(x+n.W/2), round(y+nodeH/2), -1
		x += n.W + gapX
		width = math.Max(width, x-gapX+margin)
	}
	if len(iso) > 0 {
		height = y + nodeH + margin
	}
	return width, height
}

func lessNode(a, b *lnode) bool {
	if (a.real == nil) != (b.real == nil) {
		return a.real != nil
	}
	if a.real == nil {
		return false
	}
	if a.real.Product != b.real.Product {
		return a.real.Product < b.real.Product
	}
	return a.real.Name < b.real.Name
}

func renumber(ls []*lnode, row []int) {
	for i, v := range row {
		ls[v].pos = i
	}
}

func snapshot(rows [][]int) [][]int {
	out := make([][]int, len(rows))
	for i, r := range rows {
		out[i] = append([]int(nil), r...)
	}
	return out
}

// sortByBarycentre orders a row by the mean position of each node's
// neighbours in the adjacent row; a node without neighbours keeps its place.
func sortByBarycentre(ls []*lnode, row []int, nb func(*lnode) []int) {
	key := make(map[int]float64, len(row))
	for _, v := range row {
		ns := nb(ls[v])
		if len(ns) == 0 {
			key[v] = float64(ls[v].pos)
			continue
		}
		s := 0.0
		for _, u := range ns {
			s += float64(ls[u].pos)
		}
		key[v] = s / float64(len(ns))
	}
	sort.SliceStable(row, func(i, j int) bool { return key[row[i]] < key[row[j]] })
	renumber(ls, row)
}

// crossings counts the edge crossings between every pair of adjacent rows.
func crossings(ls []*lnode, rows [][]int) int {
	total := 0
	for r := 0; r+1 < len(rows); r++ {
		type seg struct{ a, b int }
		var segs []seg
		for _, v := range rows[r] {
			for _, w := range ls[v].down {
				segs = append(segs, seg{ls[v].pos, ls[w].pos})
			}
		}
		for i := range segs {
			for j := i + 1; j < len(segs); j++ {
				if (segs[i].a-segs[j].a)*(segs[i].b-segs[j].b) < 0 {
					total++
				}
			}
		}
	}
	return total
}

// pairCrossings counts the crossings of edges of a and b (a left of b)
// with the rows above and below.
func pairCrossings(ls []*lnode, a, b int) int {
	n := 0
	for _, nbs := range [2]func(*lnode) []int{func(x *lnode) []int { return x.up }, func(x *lnode) []int { return x.down }} {
		for _, u := range nbs(ls[a]) {
			for _, w := range nbs(ls[b]) {
				if ls[u].pos > ls[w].pos {
					n++
				}
			}
		}
	}
	return n
}

// transpose swaps neighbours in a row while that removes crossings.
func transpose(ls []*lnode, rows [][]int) {
	for pass := 0; pass < 8; pass++ {
		improved := false
		for _, row := range rows {
			for i := 0; i+1 < len(row); i++ {
				a, b := row[i], row[i+1]
				if pairCrossings(ls, b, a) < pairCrossings(ls, a, b) {
					row[i], row[i+1] = b, a
					ls[a].pos, ls[b].pos = i+1, i
					improved = true
				}
			}
		}
		if !improved {
			return
		}
	}
}

func sep(a, b *lnode) float64 {
	gap := gapX
	if a.real == nil || b.real == nil {
		gap = dummyGap
	}
	return a.w/2 + gap + b.w/2
}

// place moves a row's nodes towards the mean x of the neighbours nb gives,
// keeping the order and spacing: the weighted least-squares fit of positions under
// "x[i+1] >= x[i] + sep", by pool-adjacent-violators on x - offset.
func place(ls []*lnode, row []int, nb func(*lnode) []int) {
	if len(row) == 0 {
		return
	}
	offset := make([]float64, len(row))
	for i := 1; i < len(row); i++ {
		offset[i] = offset[i-1] + sep(ls[row[i-1]], ls[row[i]])
	}
	type block struct{ sum, w float64 }
	want := make([]float64, len(row))
	weights := make([]float64, len(row))
	for i, v := range row {
		n := ls[v]
		ns := nb(n)
		want[i], weights[i] = n.x, 0.1*n.weight
		if len(ns) > 0 {
			s := 0.0
			for _, u := range ns {
				s += ls[u].x
			}
			want[i], weights[i] = s/float64(len(ns)), n.weight
		}
	}
	// PAV over y[i] = want[i] - offset[i], nondecreasing.
	var blocks []block
	var sizes []int
	for i := range row {
		b := block{sum: (want[i] - offset[i]) * weights[i], w: weights[i]}
		size := 1
		for len(blocks) > 0 && blocks[len(blocks)-1].sum/blocks[len(blocks)-1].w > b.sum/b.w {
			last := blocks[len(blocks)-1]
			b.sum += last.sum
			b.w += last.w
			size += sizes[len(sizes)-1]
			blocks, sizes = blocks[:len(blocks)-1], sizes[:len(sizes)-1]
		}
		blocks, sizes = append(blocks, b), append(sizes, size)
	}
	i := 0
	for k, b := range blocks {
		y := b.sum / b.w
		for j := 0; j < sizes[k]; j++ {
			ls[row[i]].x = y + offset[i]
			i++
		}
	}
}

func round(f float64) float64 { return math.Round(f*10) / 10 }
