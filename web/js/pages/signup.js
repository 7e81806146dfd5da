// Sign up (a guest who signs up keeps their games).
import { accountForm } from '../account.js';

/** @param {HTMLElement} main */
export async function render(main) {
  accountForm(main, 'signup');
}
