// A refusal or failure shown with the server's own text.
import { errorText } from '../lib/api.ts';

export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {errorText(error)}
    </p>
  );
}
