/**
 * The style sheet and the browser script of the QA HTML page (see ./html.ts), as text to inline.
 *
 * The script reads the page data from `<script type="application/json" id="qa-data">` and draws, per
 * clip: the timeline (canvas 2D: the score S over time and one lane per flagged bone and measure, runs
 * as red (Error) or yellow (Warning) bars over seconds), the bone x time heatmap of the severity
 * (canvas 2D), and per-bone curves of E_rot and E_twist with their thresholds (uPlot, inlined by
 * html.ts). Text from files (bone and clip names) only ever reaches the page through `textContent`,
 * canvas `fillText` or uPlot's own `textContent`: never as markup. When done it sets
 * `window.__qa = { timelines, heatmaps, charts, errors }` (used by the browser test).
 *
 * Plain ES2017 in a string (no bundling step), so it is checked by the browser test, not by tsc.
 */

export const PAGE_CSS = `
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; padding: 16px 24px; max-width: 1280px; color: #222; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 6px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 14px; margin: 14px 0 4px; color: #444; }
.facts { color: #555; margin: 2px 0; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; vertical-align: middle; }
.badge.Pass { background: #dff3e2; color: #1c6b2a; }
.badge.Warning { background: #fff1c2; color: #7a5a00; }
.badge.Error { background: #fbd5d5; color: #9b1c1c; }
.badge.Failed { background: #e5e5e5; color: #444; }
table.queue { border-collapse: collapse; width: 100%; font-size: 13px; }
table.queue th, table.queue td { border-bottom: 1px solid #eee; padding: 3px 6px; text-align: left; vertical-align: top; }
table.queue th { background: #f6f6f6; position: sticky; top: 0; }
table.queue td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.Error td:first-child { border-left: 4px solid #d92d2d; }
tr.Warning td:first-child { border-left: 4px solid #e8b400; }
canvas.timeline, canvas.heatmap { display: block; width: 100%; border: 1px solid #eee; }
.curves { display: flex; flex-wrap: wrap; gap: 8px; }
.curve { flex: 1 1 560px; min-width: 420px; }
ol.causes li { margin: 2px 0; }
ol.causes li.Error::marker { color: #d92d2d; }
ol.causes li.Warning::marker { color: #b38a00; }
.muted { color: #777; }
.error-entry { background: #f6f6f6; padding: 6px 10px; border-left: 4px solid #888; }
select { font: inherit; }
`;

export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var stats = { timelines: 0, heatmaps: 0, charts: 0, errors: [] };
  window.__qa = stats;
  var data;
  try {
    data = JSON.parse(document.getElementById('qa-data').textContent);
  } catch (e) {
    stats.errors.push('page data: ' + e);
    return;
  }
  var RED = '#d92d2d', YELLOW = '#e8b400';

  function frameSeconds(clip, f) {
    return clip.frames > 1 ? (f * clip.duration) / (clip.frames - 1) : 0;
  }

  function setupCanvas(canvas, width, height) {
    var dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(width * dpr));
    canvas.height = Math.max(1, Math.round(height * dpr));
    canvas.style.height = height + 'px';
    var ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    return ctx;
  }

  function widthOf(el) {
    var w = el.clientWidth || (el.parentElement && el.parentElement.clientWidth) || 900;
    return Math.max(320, w);
  }

  function niceStep(span, target) {
    var raw = span / Math.max(1, target);
    var p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }

  function fitLabel(ctx, text, maxWidth) {
    if (ctx.measureText(text).width <= maxWidth) return text;
    var t = text;
    while (t.length > 1 && ctx.measureText(t + '\u2026').width > maxWidth) t = t.slice(0, -1);
    return t + '\u2026';
  }

  function timeAxis(ctx, x0, x1, y, duration) {
    ctx.strokeStyle = '#999';
    ctx.fillStyle = '#555';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    ctx.beginPath();
    ctx.moveTo(x0, y + 0.5);
    ctx.lineTo(x1, y + 0.5);
    ctx.stroke();
    var span = Math.max(duration, 1e-6);
    var step = niceStep(span, (x1 - x0) / 80);
    for (var t = 0; t <= span + 1e-9; t += step) {
      var x = Math.round(x0 + (t / span) * (x1 - x0)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(x, y);
      ctx.lineTo(x, y + 4);
      ctx.stroke();
      ctx.fillText((Math.round(t * 1000) / 1000).toString() + ' s', x, y + 5);
    }
  }

  function runLanes(clip) {
    var lanes = [], index = {};
    clip.runs.forEach(function (r) {
      var key = r.bone + ' \u00b7 ' + r.measure;
      if (!(key in index)) {
        index[key] = lanes.length;
        lanes.push(key);
      }
    });
    return { lanes: lanes, index: index };
  }

  function drawTimeline(canvas, clip) {
    var width = widthOf(canvas);
    var L = runLanes(clip);
    var labelW = Math.min(220, Math.round(width * 0.22)), pad = 8;
    var scoreH = 44, laneH = 16;
    var lanes = Math.max(1, L.lanes.length);
    var height = pad + scoreH + 8 + lanes * laneH + 26;
    var ctx = setupCanvas(canvas, width, height);
    var x0 = labelW, x1 = width - pad;
    var dur = Math.max(clip.duration, 1e-6);
    function X(t) { return x0 + (Math.min(Math.max(t, 0), dur) / dur) * (x1 - x0); }
    var frameW = clip.frames > 1 ? (x1 - x0) / (clip.frames - 1) : x1 - x0;
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    ctx.fillStyle = '#333';
    // the score S per frame, scaled to max(1, max S), with the Error line S = 1
    var top = pad, sMax = Math.max(1, clip.maxScore || 0);
    ctx.fillStyle = '#fafafa';
    ctx.fillRect(x0, top, x1 - x0, scoreH);
    ctx.fillStyle = '#333';
    ctx.fillText('score S (max ' + (Math.round((clip.maxScore || 0) * 100) / 100) + ')', x0 - 6, top + scoreH / 2);
    if (clip.score.length > 0) {
      ctx.beginPath();
      ctx.moveTo(X(0), top + scoreH);
      for (var f = 0; f < clip.score.length; f++) {
        ctx.lineTo(X(frameSeconds(clip, f)), top + scoreH - (Math.min(clip.score[f], sMax) / sMax) * scoreH);
      }
      ctx.lineTo(X(frameSeconds(clip, clip.score.length - 1)), top + scoreH);
      ctx.closePath();
      ctx.fillStyle = 'rgba(217, 45, 45, 0.35)';
      ctx.fill();
      ctx.strokeStyle = RED;
      ctx.stroke();
    }
    var yOne = top + scoreH - scoreH / sMax;
    ctx.setLineDash([4, 3]);
    ctx.strokeStyle = '#888';
    ctx.beginPath();
    ctx.moveTo(x0, Math.round(yOne) + 0.5);
    ctx.lineTo(x1, Math.round(yOne) + 0.5);
    ctx.stroke();
    ctx.setLineDash([]);
    // one lane per flagged bone and measure
    var y0 = top + scoreH + 8;
    for (var i = 0; i < lanes; i++) {
      ctx.fillStyle = i % 2 ? '#fbfbfb' : '#f3f3f3';
      ctx.fillRect(x0, y0 + i * laneH, x1 - x0, laneH);
    }
    ctx.fillStyle = '#333';
    if (L.lanes.length === 0) {
      ctx.textAlign = 'left';
      ctx.fillText('no flagged runs', x0 + 6, y0 + laneH / 2);
    }
    ctx.textAlign = 'right';
    L.lanes.forEach(function (name, k) {
      ctx.fillText(fitLabel(ctx, name, labelW - 12), x0 - 6, y0 + k * laneH + laneH / 2);
    });
    clip.runs.forEach(function (r) {
      var k = L.index[r.bone + ' \u00b7 ' + r.measure];
      var a = X(r.startSeconds), b = X(r.endSeconds) + frameW;
      ctx.fillStyle = r.level === 'Error' ? RED : YELLOW;
      ctx.fillRect(a, y0 + k * laneH + 2, Math.max(2, Math.min(b, x1) - a), laneH - 4);
    });
    timeAxis(ctx, x0, x1, y0 + lanes * laneH + 2, dur);
    stats.timelines++;
  }

  function severityColor(v) {
    if (!(v > 0)) return null;
    var t = Math.min(v, 1);
    // yellow (just over the threshold) to red (S contribution 1 and more)
    var r = 240 - Math.round(20 * t), g = Math.round(200 - 170 * t), b = Math.round(40 - 10 * t);
    return 'rgb(' + r + ',' + g + ',' + b + ')';
  }

  function drawHeatmap(canvas, clip) {
    var width = widthOf(canvas);
    var rows = clip.series.length;
    var labelW = Math.min(220, Math.round(width * 0.22)), pad = 8;
    var rowH = rows > 40 ? 9 : 13;
    var height = pad + Math.max(1, rows) * rowH + 26;
    var ctx = setupCanvas(canvas, width, height);
    var x0 = labelW, x1 = width - pad, cols = Math.max(1, Math.floor(x1 - x0));
    var n = clip.frames;
    ctx.fillStyle = '#f4f4f4';
    ctx.fillRect(x0, pad, x1 - x0, Math.max(1, rows) * rowH);
    ctx.font = (rowH > 10 ? 11 : 9) + 'px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    clip.series.forEach(function (s, k) {
      var y = pad + k * rowH;
      ctx.fillStyle = '#333';
      ctx.fillText(fitLabel(ctx, s.bone, labelW - 12), x0 - 6, y + rowH / 2);
      var sev = s.sev;
      if (!sev || sev.length === 0) return;
      for (var c = 0; c < cols; c++) {
        var f0 = Math.floor((c * n) / cols), f1 = Math.max(f0 + 1, Math.floor(((c + 1) * n) / cols));
        var m = 0;
        for (var f = f0; f < f1 && f < sev.length; f++) if (sev[f] > m) m = sev[f];
        var col = severityColor(m);
        if (col) {
          ctx.fillStyle = col;
          ctx.fillRect(x0 + c, y, 1, rowH - 1);
        }
      }
    });
    if (rows === 0) {
      ctx.fillStyle = '#555';
      ctx.textAlign = 'left';
      ctx.fillText('no per-bone series in this report', x0 + 6, pad + rowH / 2);
    }
    timeAxis(ctx, x0, x1, pad + Math.max(1, rows) * rowH + 2, Math.max(clip.duration, 1e-6));
    stats.heatmaps++;
  }

  function constant(n, v) {
    var a = new Array(n);
    for (var i = 0; i < n; i++) a[i] = v;
    return a;
  }

  function drawCurve(host, clip, s) {
    if (typeof uPlot !== 'function') {
      stats.errors.push('uPlot is missing');
      return;
    }
    var n = Math.min(s.rot.length, s.twist.length);
    var x = new Array(n);
    for (var f = 0; f < n; f++) x[f] = frameSeconds(clip, f);
    var runs = clip.runs.filter(function (r) { return r.bone === s.bone; });
    var box = document.createElement('div');
    box.className = 'curve';
    host.appendChild(box);
    var series = [
      { label: 't (s)' },
      { label: 'E_rot (deg)', stroke: '#1f5fbf', width: 1.5 },
      { label: 'E_twist (deg)', stroke: '#8e44ad', width: 1.5 },
      { label: 'rotation threshold', stroke: RED, dash: [6, 4], width: 1 },
    ];
    var values = [x, s.rot.slice(0, n), s.twist.slice(0, n), constant(n, s.rotT)];
    if (s.twistT !== null && s.twistT !== undefined) {
      series.push({ label: 'twist threshold', stroke: '#e67e00', dash: [3, 3], width: 1 });
      series.push({ label: '-twist threshold', stroke: '#e67e00', dash: [3, 3], width: 1 });
      values.push(constant(n, s.twistT), constant(n, -s.twistT));
    }
    var opts = {
      title: s.bone,
      width: Math.max(400, Math.min(box.clientWidth || 600, 1200)),
      height: 220,
      scales: { x: { time: false } },
      axes: [{ label: 'seconds' }, { label: 'degrees' }],
      series: series,
      hooks: {
        drawClear: [
          function (u) {
            // the flagged runs of this bone, shaded behind the curves
            var ctx = u.ctx;
            ctx.save();
            runs.forEach(function (r) {
              var a = u.valToPos(r.startSeconds, 'x', true), b = u.valToPos(r.endSeconds, 'x', true);
              ctx.fillStyle = r.level === 'Error' ? 'rgba(217,45,45,0.15)' : 'rgba(232,180,0,0.2)';
              ctx.fillRect(a, u.bbox.top, Math.max(2, b - a), u.bbox.height);
            });
            ctx.restore();
          },
        ],
      },
    };
    new uPlot(opts, values, box);
    stats.charts++;
  }

  function curveBones(clip) {
    var seen = {}, out = [];
    clip.runs.forEach(function (r) {
      if (!seen[r.bone] && out.length < 6) {
        seen[r.bone] = true;
        out.push(r.bone);
      }
    });
    if (out.length === 0) {
      var worst = clip.series.slice().sort(function (a, b) { return b.rotMax - a.rotMax; });
      worst.slice(0, 2).forEach(function (s) { out.push(s.bone); });
    }
    return out;
  }

  function setupCurves(host, clip) {
    var byBone = {};
    clip.series.forEach(function (s) { byBone[s.bone] = s; });
    var charts = document.createElement('div');
    charts.className = 'curves';
    curveBones(clip).forEach(function (b) {
      if (byBone[b]) drawCurve(charts, clip, byBone[b]);
    });
    if (clip.series.length > 0) {
      var label = document.createElement('label');
      label.textContent = 'add the curves of a bone: ';
      var sel = document.createElement('select');
      var none = document.createElement('option');
      none.value = '';
      none.textContent = '(choose)';
      sel.appendChild(none);
      clip.series.forEach(function (s, i) {
        var o = document.createElement('option');
        o.value = String(i);
        o.textContent = s.bone;
        sel.appendChild(o);
      });
      sel.addEventListener('change', function () {
        var s = clip.series[Number(sel.value)];
        if (sel.value !== '' && s) drawCurve(charts, clip, s);
        sel.value = '';
      });
      label.appendChild(sel);
      host.appendChild(label);
    } else {
      var p = document.createElement('p');
      p.className = 'muted';
      p.textContent = 'no per-bone series in this report';
      host.appendChild(p);
    }
    host.appendChild(charts);
  }

  function each(selector, fn) {
    Array.prototype.forEach.call(document.querySelectorAll(selector), function (el) {
      var clip = data.clips[Number(el.getAttribute('data-clip'))];
      if (!clip || clip.error) return;
      try {
        fn(el, clip);
      } catch (e) {
        stats.errors.push(selector + ' ' + (clip && clip.id) + ': ' + e);
      }
    });
  }

  function drawAll() {
    stats.timelines = 0;
    stats.heatmaps = 0;
    each('canvas.timeline', drawTimeline);
    each('canvas.heatmap', drawHeatmap);
  }
  drawAll();
  each('div.curve-host', setupCurves);
  var pending = 0;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(drawAll, 150);
  });
  stats.done = true;
})();
`;
