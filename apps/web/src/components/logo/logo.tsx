/** The product mark: a shield with a check, drawn inline so the header needs no image request. */
export function Logo({ size = 32 }: { size?: number }) {
  return (
    <svg
      className="logo"
      width={size}
      height={size}
      viewBox="0 0 32 32"
      aria-hidden="true"
      focusable="false"
      xmlns="http://www.w3.org/2000/svg"
    >
      <path d="M16 2 4 6.5v8.2c0 7.4 5.1 13.3 12 15.3 6.9-2 12-7.9 12-15.3V6.5L16 2Z" fill="#0b4f8a" />
      <path
        d="m10.5 16.2 3.8 3.8 7.2-7.6"
        fill="none"
        stroke="#fff"
        strokeWidth="2.6"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
