// Package webassets is the browser code of the HTML bench report and the
// live landing page: uPlot, vendored from npm (uplot, MIT, see uplot/LICENSE),
// and the project's chart helpers. Both pages work offline: the report
// inlines these files, the exporter serves them itself.
package webassets

import _ "embed"

// UPlotVersion is the vendored uPlot release (npm pack uplot@1.6.32,
// dist/uPlot.iife.min.js and dist/uPlot.min.css).
const UPlotVersion = "1.6.32"

// The uPlot script and stylesheet, for the landing page and the bench's HTML
// report.
var (
	//go:embed uplot/uPlot.iife.min.js
	UPlotJS string
	//go:embed uplot/uPlot.min.css
	UPlotCSS string
	// ChartsJS defines window.KB: a palette, a chart constructor that keeps
	// every chart in KB.charts, and category axes.
	//go:embed charts.js
	ChartsJS string
	// ChartsCSS styles the charts of both pages.
	//go:embed charts.css
	ChartsCSS string
)
