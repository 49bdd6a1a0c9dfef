"use client";

import { useEffect, useState } from "react";
import { onDemand } from "@/lib/client/on-demand";

// The QR code's encoder downloads when a code is shown, not with the sign-in screen.
const qrCodeEncoder = onDemand(async () => (await import("qrcode")).default);

type Drawn = { value: string; dataUrl: string } | { value: string; failed: true };

/** A QR code of a URL, drawn as SVG, always dark on white so phone cameras read it in both themes. */
export function QrCodeImage({ value, label, size = 148 }: { value: string; label: string; size?: number }) {
  const [drawn, setDrawn] = useState<Drawn | null>(null);

  useEffect(() => {
    let active = true;
    qrCodeEncoder
      .load()
      .then((QRCode) => QRCode.toString(value, { type: "svg", margin: 1, errorCorrectionLevel: "M", color: { dark: "#111111", light: "#ffffff" } }))
      .then((svg) => {
        if (active) setDrawn({ value, dataUrl: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}` });
      })
      .catch(() => {
        if (active) setDrawn({ value, failed: true });
      });
    return () => {
      active = false;
    };
  }, [value]);

  const current = drawn?.value === value ? drawn : null;
  return (
    <div className="shrink-0 rounded-xl bg-white p-2 ring-1 ring-black/5" style={{ width: size + 16, height: size + 16 }}>
      {current && "dataUrl" in current ? (
        // eslint-disable-next-line @next/next/no-img-element -- a data: URL; next/image adds nothing here
        <img data-testid="qr-code" src={current.dataUrl} alt={label} width={size} height={size} className="block" />
      ) : current ? (
        // The encoder did not download (a dropped connection): the link beside it still works.
        <div role="img" aria-label={`${label}: did not load`} data-testid="qr-code" data-failed="true" className="flex size-full items-center justify-center rounded-md bg-neutral-100 p-2 text-center text-[11px] leading-4 text-neutral-600">
          QR code did not load
        </div>
      ) : (
        <div role="img" aria-label={label} data-testid="qr-code" className="size-full animate-pulse rounded-md bg-neutral-100" />
      )}
    </div>
  );
}
