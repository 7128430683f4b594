import staticPart from './static.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testMarkers } from '../../../test/support/markers.js';

// The recorded sessions of this folder belong to the dynamic part.
testDetectorFolder('X-10', [staticPart], import.meta.url, { skipServerFixtures: true });
testMarkers('X-10', [staticPart], import.meta.url);
