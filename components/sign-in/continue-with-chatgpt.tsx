import { chatgptButton } from "../ui/button-styles";

interface ContinueWithChatGPTProps {
  onClick: () => void;
  /** The page is on its way to ChatGPT. */
  redirecting: boolean;
  /** Another sign-in is starting. */
  disabled?: boolean;
  className?: string;
}

/** The button that starts Sign in with ChatGPT (a full navigation to the server's start route). */
export function ContinueWithChatGPT({ onClick, redirecting, disabled = false, className = "" }: ContinueWithChatGPTProps) {
  return (
    <button
      type="button"
      data-testid="continue-with-chatgpt"
      className={`${chatgptButton} ${className}`}
      onClick={onClick}
      disabled={disabled || redirecting}
      aria-busy={redirecting}
    >
      {redirecting ? "Opening ChatGPT…" : "Continue with ChatGPT"}
    </button>
  );
}
