/**
 * Texts that mark something on a page as an ad ("Sponsored", "Anzeige", "Ad · "), in the languages shops commonly use:
 * what the builtin engine reads a record's ad flag from and what grounds a model's yes/no on it.
 */
export const AD_TEXT =
  /^(sponsored|sponsorisé|gesponsert|patrocinado|sponsorizzato|gesponsord|ad|ads|advertisement|anzeige|annonce|promoted|publicidad|pubblicità)( (result|results|listing|listings|post|product|products|ad|link|links|by .*))?\s*[·•:|-]?$/i;
