// Sign in.
import { accountForm } from '../account.js';

/** @param {HTMLElement} main */
export async function render(main) {
  accountForm(main, 'signin');
}
