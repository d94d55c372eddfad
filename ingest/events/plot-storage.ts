/**
 * The stored form of a plot event's JSON (docs/storage.md): `p<json>` as
 * sent, or `z<base64 of deflate(json)>` from PLOT_COMPRESSION_THRESHOLD
 * characters on (0: never); and the plot fields the encoder writes beside it.
 */
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import { extractSourceUrls, isValidPlotJson, plotLength } from './plot-fields.js';
import type { PlotFields } from './event-encoder.js';
import type { NormalizedEvent } from './event-normalizer.js';

const deflateAsync = promisify(deflate);

export interface PlotStorageSettings {
  plotCompressionThreshold: number;
  plotValidation: boolean;
}

export function needsCompression(event: NormalizedEvent, settings: PlotStorageSettings): boolean {
  const threshold = settings.plotCompressionThreshold;
  return threshold > 0 && (event.plotStr ?? '').length >= threshold;
}

/** The stored text of a plot; compressing is asynchronous, so callers defer the plots that need it. */
export async function storedPlot(event: NormalizedEvent, settings: PlotStorageSettings): Promise<string> {
  const text = event.plotStr ?? '';
  return needsCompression(event, settings)
    ? `z${(await deflateAsync(Buffer.from(text, 'utf8'))).toString('base64')}`
    : `p${text}`;
}

export function plotFields(event: NormalizedEvent, stored: string, settings: PlotStorageSettings): PlotFields {
  const text = event.plotStr ?? '';
  return {
    stored,
    length: plotLength(text),
    sourceUrls: extractSourceUrls(text),
    valid: settings.plotValidation && !event.skipValidation ? isValidPlotJson(text) : undefined,
  };
}
