"use client";

import QRCode from "qrcode";
import { useEffect, useState } from "react";

/** A QR code of a URL, drawn as SVG, always dark on white so phone cameras read it in both themes. */
export function QrCodeImage({ value, label, size = 148 }: { value: string; label: string; size?: number }) {
  const [source, setSource] = useState<{ value: string; dataUrl: string } | null>(null);

  useEffect(() => {
    let active = true;
    QRCode.toString(value, { type: "svg", margin: 1, errorCorrectionLevel: "M", color: { dark: "#111111", light: "#ffffff" } })
      .then((svg) => {
        if (active) setSource({ value, dataUrl: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}` });
      })
      .catch(() => {
        if (active) setSource(null);
      });
    return () => {
      active = false;
    };
  }, [value]);

  const ready = source?.value === value;
  return (
    <div className="shrink-0 rounded-xl bg-white p-2 ring-1 ring-black/5" style={{ width: size + 16, height: size + 16 }}>
      {ready ? (
        // eslint-disable-next-line @next/next/no-img-element -- a data: URL; next/image adds nothing here
        <img data-testid="qr-code" src={source.dataUrl} alt={label} width={size} height={size} className="block" />
      ) : (
        <div role="img" aria-label={label} data-testid="qr-code" className="size-full animate-pulse rounded-md bg-neutral-100" />
      )}
    </div>
  );
}
